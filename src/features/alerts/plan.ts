/**
 * What a scan means for one subscribed channel, decided without touching Slack or the
 * store: which visitors get a new alert, which alerts are raised because the severity
 * rose, which get a "seen again" in their thread, and whether new alerts come as one
 * burst summary. The watcher carries the decisions out.
 */
import type { VisitRecord } from '../../kernel/records.js';
import { atLeast, judge, onlyChecks, severityRank, type AlertCheck, type SecurityFacts, type Severity, type VerdictName, type VerdictOptions } from '../../kernel/verdict.js';

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
        decisions.push({ kind: 'sighting', visitorId, visits: visits.length, last, messageTs: before.messageTs, threadTs: before.threadTs ?? before.messageTs });
      }
    } else if (verdict.severity && atLeast(verdict.severity, scan.subscription.minSeverity)) {
      decisions.push({ kind: 'new', ...judged, severity: verdict.severity, first, visits: visits.length });
    }
  }
  return decisions;
}

/**
 * How the new alerts that were claimed go out: the most severe first, each on its own,
 * or, when there are more than `burst`, under one summary whose thread holds them.
 */
export function planDelivery(claimed: readonly NewAlert[], burst: number): { summary: boolean; alerts: NewAlert[] } {
  const alerts = [...claimed].sort((a, b) => severityRank(b.severity) - severityRank(a.severity));
  return { summary: alerts.length > burst, alerts };
}
