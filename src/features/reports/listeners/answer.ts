import type { ReportQuery } from '../../../kernel/query.js';
import type { ModalContext } from '../modals.js';
import type { SlackDeps } from '../../../platform/slack/deps.js';
import { runReport } from '../service.js';
import { postToResponseUrl } from '../../../platform/slack/respond.js';

/** After a modal closes: the new report, in place of the message the modal came from (if it was ephemeral). */
export async function answerFromModal(deps: SlackDeps, context: ModalContext, query: ReportQuery): Promise<void> {
  const answer = await runReport(deps, query, { channelId: context.c, ephemeral: true });
  await postToResponseUrl(context.u, { ...answer.message, response_type: 'ephemeral', replace_original: context.e });
}
