/**
 * What a scan means for one subscribed channel, decided without touching Slack or the
 * store: which visitors get a new alert, which alerts are raised because the severity
 * rose, which get a "seen again" in their thread, and how new alerts go out: grouped or
 * one each. The threat scan carries the decisions out.
 */
import type { VisitRecord } from '../../kernel/records.js';
import {
  atLeast,
  judge,
  onlyChecks,
  severityRank,
  type AlertCheck,
  type SecurityFacts,
  type Severity,
  type VerdictName,
  type VerdictOptions,
} from '../../kernel/verdict.js';

/** What the channel already has for a visitor. */
export interface Existing {
  severity: Severity;
  /** Unset while its post is under way (or was lost): nothing is decided for it. */
  messageTs?: string;
  threadTs?: string;
}

export interface ChannelScan {
  subscription: { minSeverity: Severity; checks: readonly AlertCheck[] };
  /** The new visits of each visitor, oldest first. */
  visits: ReadonlyMap<string, readonly VisitRecord[]>;
  facts: ReadonlyMap<string, SecurityFacts>;
  existing: ReadonlyMap<string, Existing>;
  muted: ReadonlySet<string>;
  verdict: VerdictOptions;
}

interface Judged {
  visitorId: string;
  severity: Severity;
  verdict: VerdictName;
  reasons: string[];
  /** The visitor's latest new visit. */
  last: VisitRecord;
}

/** A visitor flagged for the first time here: claim it, then post it. */
export interface NewAlert extends Judged {
  kind: 'new';
  first: VisitRecord;
  /** New visits in this scan. */
  visits: number;
}

/** The severity rose above the alert's: re-announce it. */
export interface Raise extends Judged {
  kind: 'raise';
}

/** Seen again: a reply in the alert's thread, and the parent's count updated. */
export interface Sighting {
  kind: 'sighting';
  visitorId: string;
  visits: number;
  last: VisitRecord;
  messageTs: string;
  threadTs: string;
}

export type Decision = NewAlert | Raise | Sighting;

export function planChannel(scan: ChannelScan): Decision[] {
  const decisions: Decision[] = [];
  for (const [visitorId, visits] of scan.visits) {
    const first = visits[0];
    const last = visits[visits.length - 1];
    if (!first || !last || scan.muted.has(visitorId)) continue;
    const verdict = judge(onlyChecks(scan.facts.get(visitorId) ?? {}, scan.subscription.checks), scan.verdict);
    const judged = { visitorId, verdict: verdict.name, reasons: verdict.reasons.map((r) => r.text), last };
    const before = scan.existing.get(visitorId);
    if (before) {
      if (!before.messageTs) continue;
      if (verdict.severity && severityRank(verdict.severity) > severityRank(before.severity)) {
        decisions.push({ kind: 'raise', ...judged, severity: verdict.severity });
      } else {
        decisions.push({
          kind: 'sighting',
          visitorId,
          visits: visits.length,
          last,
          messageTs: before.messageTs,
          threadTs: before.threadTs ?? before.messageTs,
        });
      }
    } else if (verdict.severity && atLeast(verdict.severity, scan.subscription.minSeverity)) {
      decisions.push({ kind: 'new', ...judged, severity: verdict.severity, first, visits: visits.length });
    }
  }
  return decisions;
}

/** How a channel gets its new alerts: grouped (the default), or one message each. */
export const GROUPINGS = ['grouped', 'each'] as const;
export type Grouping = (typeof GROUPINGS)[number];

/** A group takes the new flagged visitors decided within this of its first; later ones start a new group. */
export const GROUP_WINDOW_MS = 5 * 60_000;

/** The channel's group still taking alerts (its window not over, its message not given up). */
export interface OpenGroup {
  /** Its message is the summary already; false while it is its lone first visitor's alert. */
  summarised: boolean;
}

export type DeliveryPlan =
  /** Each alert a message of its own. */
  | { kind: 'each'; alerts: NewAlert[] }
  /**
   * A new group. Without a summary its lone alert is posted as it is; with one, the summary
   * is posted and each alert is a reply in its thread. `closed`: nothing joins it later (a burst).
   */
  | { kind: 'start'; alerts: NewAlert[]; summary: boolean; closed: boolean }
  /** Replies in the open group's thread, its summary edited; `convert`: its message is its first alert, which becomes the summary and moves into the thread. */
  | { kind: 'join'; alerts: NewAlert[]; convert: boolean };

const timeOf = (visit: VisitRecord): number => (visit.date ? Date.parse(visit.date) : 0) || 0;

/**
 * How the new alerts that were claimed go out, the most severe first (then the first to
 * show up). Grouped: into the
 * channel's open group, or a new one. Each: a message each, or, when there are more than
 * `burst` in one scan, a group of their own (flood control).
 */
export function planDelivery(
  claimed: readonly NewAlert[],
  channel: { grouping: Grouping; burst: number; open?: OpenGroup },
): DeliveryPlan {
  const alerts = [...claimed].sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      timeOf(a.first) - timeOf(b.first) ||
      (a.visitorId < b.visitorId ? -1 : 1),
  );
  if (channel.grouping === 'each')
    return alerts.length > channel.burst
      ? { kind: 'start', alerts, summary: true, closed: true }
      : { kind: 'each', alerts };
  if (alerts.length === 0) return { kind: 'each', alerts };
  if (channel.open) return { kind: 'join', alerts, convert: !channel.open.summarised };
  return { kind: 'start', alerts, summary: alerts.length > 1, closed: false };
}
