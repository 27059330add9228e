import { ApiError } from '../../platform/api/errors.js';
import { resolveRange } from '../../kernel/dates.js';
import { toMarketingRequest, withPage, type ReportQuery } from '../../kernel/query.js';
import { LIMITS } from '../../platform/slack/kit/limits.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { MENU_BLOCK_PREFIX, reportMessage } from './blocks.js';
import type { SlackDeps } from '../../platform/slack/deps.js';

/**
 * Runs a report query and renders the answer: resolve the range in the
 * channel's zone, fetch one page, render. Every failure becomes a message that
 * says what happened (and a log line with more); nothing is thrown for the API.
 */
export async function runReport(
  deps: SlackDeps,
  query: ReportQuery,
  where: { channelId?: string; ephemeral: boolean },
): Promise<{ ok: boolean; message: SlackMessage }> {
  const timeZone = await deps.timeZoneFor(where.channelId);
  const now = deps.now();
  const resolved = resolveRange(query.range, timeZone, now);
  if (!resolved.ok) return { ok: false, message: problemMessage(resolved.error, 'Pick another range.') };

  const def = deps.catalog[query.report];
  let rows;
  try {
    rows = await deps.api.report(query.report, toMarketingRequest(query, deps.catalog, resolved.range));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    deps.log.warn({ report: query.report, kind: error.kind, status: error.info.status }, 'report failed');
    return { ok: false, message: problemMessage(error.message) };
  }

  const { refs } = deps;
  const blockRoom = LIMITS.blockId - MENU_BLOCK_PREFIX.length;
  const message = reportMessage({
    def,
    query,
    range: resolved.range,
    rows,
    timeZone,
    now,
    demo: deps.demo,
    ephemeral: where.ephemeral,
    refs: {
      current: await refs.ref(query, LIMITS.buttonValue),
      block: await refs.ref(query, blockRoom),
      prev: query.page > 1 ? await refs.ref(withPage(query, query.page - 1), LIMITS.buttonValue) : undefined,
      next: rows.length >= query.top ? await refs.ref(withPage(query, query.page + 1), LIMITS.buttonValue) : undefined,
    },
  });
  return { ok: true, message };
}
