import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { REPORT_IDS, type ReportId } from '../../kernel/catalog.js';
import { parseFilterText } from './parse.js';
import { isValidTimeZone } from '../../kernel/dates.js';
import { defaultPeriod, toCron, type DigestSchedule } from './schedule.js';
import type { DigestInput } from './modal.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import { guarded } from '../../platform/slack/respond.js';
import { mayManage } from './listeners.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

interface StateValue {
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: { value?: string }[];
  selected_channel?: string | null;
}

/** The digest form's Create/Save: every field checked, errors shown beside the field. */
export function submitDigest(deps: SlackDeps) {
  return async ({ ack, view, body, client }: Args) => {
    const state = view.state.values as Record<string, Record<string, StateValue>>;
    const get = (id: DigestInput): StateValue => state[id]?.[id] ?? {};
    const errors: Partial<Record<DigestInput, string>> = {};

    const channelId = get('channel').selected_channel ?? undefined;
    if (!channelId) errors.channel = 'Pick a channel.';
    const reports = (get('reports').selected_options ?? []).map((o) => o.value ?? '').filter((r): r is ReportId => REPORT_IDS.includes(r as ReportId));
    if (reports.length === 0) errors.reports = 'Pick at least one report.';
    const kind = (get('frequency').selected_option?.value ?? 'daily') as DigestSchedule['kind'];
    const schedule: DigestSchedule = { kind };
    if (kind !== 'cron') schedule.time = (get('time').value ?? '').trim().padStart(5, '0');
    if (kind === 'weekly') schedule.weekday = Number(get('weekday').selected_option?.value ?? 1);
    if (kind === 'monthly') schedule.monthday = Number((get('monthday').value ?? '').trim());
    if (kind === 'cron') schedule.cron = (get('cron').value ?? '').trim();
    const cron = toCron(schedule);
    if (!cron.ok) {
      const field: DigestInput = kind === 'cron' ? 'cron' : kind === 'monthly' && /day/i.test(cron.error) ? 'monthday' : 'time';
      errors[field] = cron.error.replace(/`/g, '');
    }
    const timeZone = (get('timezone').value ?? '').trim();
    if (!isValidTimeZone(timeZone)) errors.timezone = 'Not an IANA time zone; try Europe/Berlin, America/New_York or UTC.';
    const top = Number(get('top').selected_option?.value ?? 5);
    const filters = parseFilterText(get('filters').value ?? '', deps.catalog);
    if (!filters.ok) errors.filters = filters.error.replace(/`/g, '').slice(0, 150);

    let editing: number | undefined;
    try {
      const id = (JSON.parse(view.private_metadata || '{}') as { id?: unknown }).id;
      editing = typeof id === 'number' ? id : undefined;
    } catch {
      editing = undefined;
    }
    if (Object.keys(errors).length > 0 || !cron.ok || !filters.ok || !channelId) {
      await ack({ response_action: 'errors', errors });
      return;
    }

    const user = body.user.id;
    const input = {
      channelId,
      reports,
      filters: filters.filters,
      topN: top,
      period: defaultPeriod(kind),
      schedule,
      cron: cron.cron,
      timeZone,
    };
    if (editing !== undefined) {
      const existing = await deps.digests.repo.get(editing);
      if (!existing || !mayManage(deps, user, existing)) {
        await ack({ response_action: 'errors', errors: { channel: existing ? 'Only its owner or an admin can change this digest.' : 'This digest no longer exists.' } });
        return;
      }
    }
    await ack();
    await guarded(deps, 'save digest', undefined, async () => {
      const saved =
        editing !== undefined
          ? await deps.digests.repo.update(editing, input)
          : await deps.digests.repo.create({ ...input, teamId: body.team?.id ?? body.user.team_id ?? '', ownerId: user });
      await deps.digests.service.changed();
      deps.log.info({ digest: saved?.id, user, edited: editing !== undefined }, 'digest saved');
      if (saved) {
        await client.chat.postEphemeral({
          channel: saved.channelId,
          user,
          text: `Digest #${saved.id} ${editing !== undefined ? 'saved' : 'created'}: it posts in this channel on its schedule. /traffic digest list shows it.`,
        });
      }
    });
  };
}
