import type { WebClient } from '@slack/web-api';
import { REPORTS, type ReportId } from '../../kernel/catalog.js';
import { formatDateTime } from '../../kernel/format.js';
import { scheduleInWords, type DigestPeriod } from './schedule.js';
import type { Logger } from '../../platform/log.js';
import { digestMessage, type DigestListItem } from './blocks.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import type { Digest } from './repo.js';
import type { Store } from '../../platform/store/index.js';
import { gatherDigest, type DigestFetcher } from './content.js';
import type { DigestScheduler } from './scheduler.js';

export interface DigestServiceDeps {
  store: Store;
  fetcher: DigestFetcher;
  /** The Web API client (the Slack app's, made after this service). */
  slack: () => WebClient;
  log: Logger;
  now: () => Date;
  demo: boolean;
  /** This replica's name (the owner of its claims). */
  owner: string;
}

function periodOf(value: string): DigestPeriod {
  return value === 'week' || value === 'month' ? value : 'day';
}

function title(digest: Digest): string {
  const names = digest.reports.map((id) => REPORTS[id as ReportId]?.title ?? id);
  return `Digest: ${names.join(', ')}`;
}

/** Why Slack refused a post, in words ("is_archived", "channel_not_found", "ratelimited"). */
function slackReason(error: unknown): string {
  const data = (error as { data?: { error?: string } }).data;
  return data?.error ?? (error instanceof Error ? error.message : String(error));
}

/** Builds, posts and records digests; describes them for the list. */
export class DigestService {
  scheduler?: DigestScheduler;

  constructor(private readonly deps: DigestServiceDeps) {}

  async render(digest: Digest, at: Date, preview: boolean): Promise<SlackMessage> {
    const view = await gatherDigest(
      this.deps.fetcher,
      { id: digest.id, reports: digest.reports as ReportId[], filters: digest.filters, topN: digest.topN, period: periodOf(digest.period), timeZone: digest.timeZone },
      at,
      { title: title(digest), demo: this.deps.demo, preview },
    );
    return digestMessage({ ...view, security: await this.securityLine(view.period) });
  }

  /** Flagged visitors seen in the period, once threat alerts are on anywhere. */
  private async securityLine(period: { startDate: string; endDate: string }): Promise<string | undefined> {
    const { store } = this.deps;
    if ((await store.alertSubscriptions.list()).length === 0) return undefined;
    const from = new Date(`${period.startDate}T00:00:00Z`);
    const to = new Date(Date.parse(`${period.endDate}T00:00:00Z`) + 86_400_000);
    const n = await store.alerts.countSeenBetween(undefined, from, to);
    return n === 0 ? 'No flagged visitors were seen in this period.' : `${n} flagged visitor${n === 1 ? ' was' : 's were'} seen in this period (see the threat alerts).`;
  }

  /**
   * Posts a claimed slot. The claim was recorded before; the post is recorded
   * after, so a crash in between is visible (and not retried into a duplicate).
   * A failing channel fails this digest's run only.
   */
  readonly post = async (digest: Digest, slot: Date, stopping?: AbortSignal): Promise<void> => {
    const { store, log } = this.deps;
    const slack = this.deps.slack();
    try {
      const message = await this.render(digest, slot, false);
      if (stopping?.aborted) {
        await store.runs.release(digest.id, slot, this.deps.owner);
        log.info({ digest: digest.id, slot: slot.toISOString() }, 'shutting down: digest slot handed back, not posted');
        return;
      }
      const result = await slack.chat.postMessage({ channel: digest.channelId, ...message, unfurl_links: false, unfurl_media: false });
      await store.runs.markPosted(digest.id, slot, result.ts ?? '', digest.channelId);
      log.info({ digest: digest.id, slot: slot.toISOString(), channel: digest.channelId }, 'digest posted');
    } catch (error) {
      const reason = slackReason(error);
      await store.runs.markFailed(digest.id, slot, reason);
      log.error({ digest: digest.id, slot: slot.toISOString(), channel: digest.channelId, reason }, 'digest failed');
    }
  };

  /** What `/traffic digest list` shows for each digest. */
  async describe(digests: Digest[], viewer: string, isAdmin: boolean, timeZone: string): Promise<DigestListItem[]> {
    const last = await this.deps.store.runs.lastRuns(digests.map((d) => d.id));
    const now = this.deps.now();
    return digests.map((d) => {
      const run = last.get(d.id);
      const next = this.scheduler?.nextRun(d.id);
      return {
        id: d.id,
        channelId: d.channelId,
        ownerId: d.ownerId,
        reports: d.reports,
        schedule: scheduleInWords(d.schedule, d.timeZone),
        nextRun: next ? formatDateTime(next.toISOString(), timeZone, now) : undefined,
        lastRun: run ? `${run.status} ${formatDateTime(run.slot.toISOString(), timeZone, now)}${run.error ? ` (${run.error})` : ''}` : undefined,
        paused: d.paused,
        canManage: isAdmin || d.ownerId === viewer,
      };
    });
  }

  /** After a change on this replica: take it into the schedule now (other replicas reload on their interval). */
  async changed(): Promise<void> {
    await this.scheduler?.reload();
  }
}
