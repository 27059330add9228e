import {
  buttonValue,
  type ActionArgs,
  type Handling,
  type Routes,
  type ViewArgs,
} from '../../platform/slack/routes.js';
import { REPORTS } from '../../kernel/catalog.js';
import { RowId } from '../../kernel/text.js';
import { infoMessage, usageMessage, type Result, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { slackReason } from '../../platform/slack/poster.js';
import { guarded } from '../../platform/slack/respond.js';
import type { Subcommand } from '../../platform/slack/subcommand.js';
import { DIGEST_ACTIONS } from './blocks.js';
import {
  decodeFormId,
  DIGEST_FREQUENCY_ACTION,
  DIGEST_MODAL,
  digestModal,
  readDigestForm,
  redrawDigestForm,
} from './modal.js';
import { parseDigestCommand, type DigestVerb } from './parse.js';
import type { DigestService } from './service.js';
import type { Digest } from './repo.js';

const CATALOG = Object.values(REPORTS);

type Tenant = Awaited<ReturnType<Handling['tenant']>>;

/** The answer to a change: the digest as listed now, or why not. */
async function listed(
  digests: DigestService,
  tenant: Tenant,
  user: string,
  outcome: Result<{ id: number } & object>,
  heading: string,
): Promise<SlackMessage> {
  if (!outcome.ok) return outcome.message;
  const fresh = await digests.manageable(tenant, user, outcome.value.id);
  return digests.describe(tenant, fresh.ok ? [fresh.value] : [], user, heading);
}

/** `/traffic digest …` (after the ack), in the workspace the command came from. */
export function digestCommand(digests: DigestService): Subcommand {
  return async ({ command, client, args, reply }) => {
    const parsed = parseDigestCommand(args, REPORTS);
    const user = command.user_id;
    if (parsed.kind === 'error') return reply(usageMessage(parsed.message, parsed.usage));
    const tenant = await digests.tenantOf(command);
    switch (parsed.kind) {
      case 'open-form':
        return client.views.open({
          trigger_id: command.trigger_id,
          view: digestModal(
            CATALOG,
            await digests.formValues(tenant, user, command.channel_id),
            undefined,
            command.channel_id,
          ),
        });
      case 'add':
        return reply(
          await listed(
            digests,
            tenant,
            user,
            await digests.add(tenant, user, command.channel_id, parsed),
            'just added',
          ),
        );
      case 'list':
        return reply(await digests.list(tenant, user, parsed.all ? 'all' : { channelId: command.channel_id }));
      default:
        return verb(
          digests,
          tenant,
          parsed.kind,
          parsed.id,
          { user, from: command.channel_id },
          reply,
          (view) => client.views.open({ trigger_id: command.trigger_id, view }),
          false,
        );
    }
  };
}

/** One digest by id: the same for a typed command and a button in the list. */
async function verb(
  digests: DigestService,
  tenant: Tenant,
  kind: DigestVerb,
  id: number,
  { user, from }: { user: string; from?: string },
  reply: (message: SlackMessage) => Promise<unknown>,
  openView: (view: ReturnType<typeof digestModal>) => Promise<unknown>,
  fromList: boolean,
): Promise<unknown> {
  switch (kind) {
    case 'preview': {
      const preview = await digests.preview(tenant, id, user);
      return reply(preview.ok ? preview.value : preview.message);
    }
    case 'remove': {
      const removed = await digests.remove(tenant, user, id);
      return reply(removed.ok ? removed.value : removed.message);
    }
    case 'edit': {
      const digest = await digests.manageable(tenant, user, id);
      if (!digest.ok) return reply(digest.message);
      return openView(
        digestModal(CATALOG, await digests.formValues(tenant, user, digest.value.channelId, digest.value), id, from),
      );
    }
    case 'pause':
    case 'resume': {
      const changed = await digests.setPaused(tenant, user, id, kind === 'pause');
      if (fromList || !changed.ok) return reply(await listed(digests, tenant, user, changed, 'updated'));
      return reply(infoMessage(`Digest #${id} is ${kind === 'pause' ? 'paused' : 'running again'}.`));
    }
  }
}

/** A button of `/traffic digest list`: it acts on the digest whose id is its value. */
function digestButton(digests: DigestService, kind: DigestVerb) {
  return async (args: ActionArgs, { reply, tenant }: Handling) => {
    const id = RowId.safeParse(buttonValue(args));
    if (!id.success) return reply(usageMessage('That button is not one of ours.', '/traffic digest list'));
    return verb(
      digests,
      await tenant(),
      kind,
      id.data,
      { user: args.body.user.id, from: args.body.channel?.id },
      reply,
      (view) => args.client.views.open({ trigger_id: args.body.trigger_id, view }),
      true,
    );
  };
}

/** The digest form's Create/Save: every field checked, errors shown beside the field. */
function submitDigest(digests: DigestService) {
  return async ({ ack, view, body, client, context }: ViewArgs) => {
    const { log } = context;
    const form = readDigestForm(view.state.values, REPORTS);
    if ('errors' in form) return ack({ response_action: 'errors', errors: form.errors });
    const opened = decodeFormId(view.private_metadata);
    const user = body.user.id;
    if (opened === null)
      return ack({ response_action: 'errors', errors: { channel: 'This form is too old. Close it and start again.' } });
    const editing = opened.id;
    const workspace = await digests.workspace(body);
    if (!workspace.ok)
      return ack({ response_action: 'errors', errors: { channel: workspace.message.text.slice(0, 300) } });
    const tenant = workspace.value;
    let current: Digest | undefined;
    if (editing !== undefined) {
      const allowed = await digests.manageable(tenant, user, editing);
      if (!allowed.ok) return ack({ response_action: 'errors', errors: { channel: allowed.message.text } });
      current = allowed.value;
    }
    const over = await digests.overLimit(tenant.team, current?.ownerId ?? user, form.input, current);
    if (over) {
      const field = over.field === 'channel' ? 'channel' : form.input.schedule.kind === 'cron' ? 'cron' : 'frequency';
      return ack({ response_action: 'errors', errors: { [field]: `${over.problem} ${over.hint}`.slice(0, 300) } });
    }
    await ack();
    await guarded(log, 'save digest', undefined, async () => {
      const saved =
        editing !== undefined
          ? await digests.update(tenant, user, editing, form.input)
          : await digests.create(tenant, user, form.input);
      // The person hears where they are: the channel the form was opened in, else the digest's.
      const here = opened.from ?? form.input.channelId;
      if (!saved.ok) return client.chat.postEphemeral({ channel: here, user, ...saved.message });
      const verb = editing !== undefined ? 'saved' : 'created';
      const there = saved.value.channelId;
      await client.chat.postEphemeral({
        channel: there,
        user,
        ...(await digests.saved(tenant, saved.value, verb, there)),
      });
      if (here !== there)
        await client.chat.postEphemeral({
          channel: here,
          user,
          ...(await digests.saved(tenant, saved.value, verb, here)),
        });
    });
  };
}

/**
 * "How often" in the digest form: the form is drawn again with the fields of the schedule
 * picked (views.update with the view's hash; a later pick that already redrew it wins).
 */
async function switchSchedule(args: ActionArgs, { log }: Handling): Promise<void> {
  const view = args.body.view;
  if (!view || view.callback_id !== DIGEST_MODAL) return;
  const picked = args.action.type === 'static_select' ? args.action.selected_option?.value : undefined;
  const redrawn = redrawDigestForm(CATALOG, view, picked);
  if (!redrawn) return;
  try {
    await args.client.views.update({ view_id: view.id, hash: view.hash, view: redrawn });
  } catch (error) {
    if (slackReason(error) !== 'hash_conflict') throw error;
    log.debug({ view: view.id }, 'the digest form changed again before it was redrawn');
  }
}

export function registerDigests(routes: Routes, digests: DigestService): void {
  for (const kind of ['preview', 'pause', 'resume', 'edit', 'remove'] as const)
    routes.handle(DIGEST_ACTIONS[kind], digestButton(digests, kind));
  routes.handle(DIGEST_FREQUENCY_ACTION, switchSchedule, 'none');
  routes.view(DIGEST_MODAL, submitDigest(digests));
}
