import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { infoMessage, problemMessage } from '../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import { guarded, replyTo } from '../../platform/slack/respond.js';
import { editView, listMessage, mayManage } from './listeners.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
type Verb = 'preview' | 'pause' | 'resume' | 'edit' | 'remove';

/** The buttons of `/traffic digest list`: each acts on the digest whose id is its value. */
export function digestButton(deps: SlackDeps, verb: Verb) {
  return async (args: Args) => {
    await args.ack();
    const user = args.body.user.id;
    const tell = (m: Parameters<typeof replyTo>[2]) => replyTo(args.respond, { ephemeral: false }, m);
    await guarded(deps, `digest ${verb}`, tell, async () => {
      const id = Number(args.action.type === 'button' ? args.action.value : NaN);
      const digest = Number.isInteger(id) ? await deps.digests.repo.get(id) : undefined;
      if (!digest) return tell(problemMessage('That digest no longer exists.', 'See /traffic digest list.'));
      if (verb === 'preview') return tell(await deps.digests.service.render(digest, deps.now(), true));
      if (!mayManage(deps, user, digest)) return tell(problemMessage(`Digest #${id} belongs to someone else; only its owner or an admin can change it.`));
      if (verb === 'edit') {
        await args.client.views.open({ trigger_id: args.body.trigger_id, view: editView(digest) });
        return;
      }
      if (verb === 'remove') await deps.digests.repo.remove(id);
      else await deps.digests.repo.setPaused(id, verb === 'pause');
      await deps.digests.service.changed();
      deps.log.info({ digest: id, user, verb }, 'digest changed');
      if (verb === 'remove') return tell(infoMessage(`Digest #${id} is removed.`));
      const fresh = await deps.digests.repo.get(id);
      return tell(await listMessage(deps, fresh ? [fresh] : [], user, 'updated'));
    });
  };
}
