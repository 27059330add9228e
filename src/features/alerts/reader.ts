import type { VisitRecord } from '../../kernel/records.js';
import type { VerdictOptions } from '../../kernel/verdict.js';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import type { Queryable } from '../../platform/store/db.js';
import type { Interest, ScanReader } from '../threats/index.js';
import { announceNew, viewOf, type AnnounceOptions } from './announce.js';
import { alertMessage, sightingsReply } from './blocks.js';
import { ALERT, ALERT_EDIT, SIGHTING } from './deliveries.js';
import { planChannel, type Decision, type NewAlert } from './plan.js';
import { AlertRepo } from './repos/alerts.js';
import type { AlertMuteRepo } from './repos/mutes.js';
import type { AlertSubscription, AlertSubscriptionRepo } from './repos/subscriptions.js';

export interface AlertReaderOptions extends AnnounceOptions {
  repos: { subscriptions: AlertSubscriptionRepo; alerts: AlertRepo; mutes: AlertMuteRepo };
  verdict: VerdictOptions;
}

function timeOf(visit: VisitRecord): number {
  return visit.date ? Date.parse(visit.date) : NaN;
}

/**
 * Threat alerts read the threat scan: for the channels subscribed, each plans its alerts
 * from what the scan found (plan.ts) and writes them, with the deliveries that announce
 * them, in the scan's transaction. Nothing here waits on Slack.
 */
export class AlertReader implements ScanReader {
  constructor(private readonly options: AlertReaderOptions) {}

  async interest(teams: readonly string[] | undefined): Promise<Interest | undefined> {
    const { repos, verdict } = this.options;
    const subscriptions = await repos.subscriptions.list(teams);
    if (subscriptions.length === 0) return undefined;
    return {
      checks: [...new Set(subscriptions.flatMap((s) => s.checks))],
      read: async ({ visits, facts, now }) => {
        const plans: { subscription: AlertSubscription; decisions: Decision[] }[] = [];
        for (const subscription of subscriptions) {
          const ids = [...visits.keys()];
          plans.push({
            subscription,
            decisions: planChannel({
              subscription,
              visits,
              facts,
              existing: await repos.alerts.getMany(subscription.teamId, subscription.channelId, ids),
              muted: new Set(
                (await repos.mutes.activeFor(subscription.teamId, subscription.channelId, ids, now)).keys(),
              ),
              verdict,
            }),
          });
        }
        return async (tx) => {
          const counts = { alerts: 0, sightings: 0 };
          for (const { subscription, decisions } of plans) {
            const written = await this.writeChannel(tx, subscription, decisions, now);
            counts.alerts += written.alerts;
            counts.sightings += written.sightings;
          }
          return counts;
        };
      },
    };
  }

  /** One channel's plan, written to the store: alert rows and the deliveries that announce them. */
  private async writeChannel(
    tx: Queryable,
    subscription: AlertSubscription,
    decisions: readonly Decision[],
    now: Date,
  ): Promise<{ alerts: number; sightings: number }> {
    const alerts = new AlertRepo(tx);
    const outbox = new DeliveryRepo(tx);
    const { teamId: team, channelId: channel } = subscription;
    const { deliveryDeadlineMs: expiresInMs, timeZone } = this.options;
    const counts = { alerts: 0, sightings: 0 };
    const fresh: NewAlert[] = [];
    for (const decision of decisions) {
      if (decision.kind === 'new') {
        fresh.push(decision);
      } else if (decision.kind === 'raise') {
        const { visitorId, severity, verdict, reasons, last } = decision;
        const raised = await alerts.raise(team, channel, visitorId, {
          severity,
          verdict,
          reasons,
          visit: last,
          lastSeen: new Date(timeOf(last)),
        });
        if (!raised) continue;
        const id = await outbox.enqueue({
          subject: ALERT,
          payload: { visitorId },
          team,
          channelId: channel,
          message: alertMessage(viewOf(raised, now, timeZone, { raised: true })),
          expiresInMs,
        });
        await alerts.announce(team, channel, visitorId, id);
        counts.alerts++;
      } else {
        const { visitorId, visits, last } = decision;
        const updated = await alerts.recordSighting(team, channel, visitorId, {
          count: visits,
          lastSeen: new Date(timeOf(last)),
          visit: last,
        });
        if (!updated) continue;
        await outbox.enqueue({
          subject: SIGHTING,
          team,
          channelId: channel,
          message: sightingsReply(visitorId, visits, last, { timeZone, now }),
          threadTs: decision.threadTs,
          expiresInMs,
        });
        await outbox.enqueue({
          subject: ALERT_EDIT,
          team,
          channelId: channel,
          message: alertMessage(viewOf(updated, now, timeZone)),
          updateTs: decision.messageTs,
          expiresInMs,
        });
        counts.sightings++;
      }
    }
    const claimed: NewAlert[] = [];
    for (const f of fresh) {
      const won = await alerts.claim({
        teamId: team,
        channelId: channel,
        visitorId: f.visitorId,
        severity: f.severity,
        verdict: f.verdict,
        reasons: f.reasons,
        visit: f.last,
        firstSeen: new Date(timeOf(f.first)),
        lastSeen: new Date(timeOf(f.last)),
        sightings: f.visits,
      });
      if (won) claimed.push(f);
    }
    counts.alerts += await announceNew(tx, subscription, claimed, now, this.options);
    return counts;
  }
}
