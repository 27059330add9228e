/**
 * What operators scrape at /metrics (Prometheus text, prom-client): deliveries by kind and
 * outcome with their latency, analytics API calls by outcome, commands and interactions
 * by outcome, requests the guard refused by reason, and, read from the store at each scrape, the outbox by status, the threat
 * scan's age and who holds each lease.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './log.js';

/** Read from the store at each scrape; a store that does not answer shows as lookout_store_up 0. */
export interface MetricProbes {
  deliveries(): Promise<{ kind: string; status: string; n: number }[]>;
  /** Seconds since the last successful threat scan; undefined before the first (the alerts feature adds it). */
  scanAgeSeconds?(): Promise<number | undefined>;
  /** Who holds each lease (the features holding one add it). */
  leases?(): Promise<{ key: string; owner: string }[]>;
  /** Background analytics API requests waiting for the workspace's budget now, and that waited, ever. */
  apiBudget?(): { waiting: number; waited: number };
}

export class Metrics {
  readonly registry = new Registry();
  readonly deliveries: Counter<'kind' | 'outcome'>;
  readonly deliveryLatency: Histogram<'kind'>;
  readonly api: Histogram<'operation' | 'outcome'>;
  readonly requests: Counter<'type' | 'name' | 'outcome'>;
  readonly refused: Counter<'reason'>;
  readonly trendPeriods: Counter<'source'>;
  readonly trendRechecks: Counter<'changed'>;
  readonly watchEvaluations: Counter<'outcome'>;
  readonly watchExplanations: Counter<'outcome'>;
  readonly homeRefreshes: Counter<'outcome'>;
  readonly preflight: Counter<'method' | 'outcome'>;

  private readonly probes: MetricProbes;

  constructor(probes: MetricProbes, log: Logger) {
    this.probes = { ...probes };
    const probe = this.probes;
    const registers = [this.registry];
    // The event-loop delay is sampled every 100 ms, not every 10 ms: idle CPU 4.0–4.3 ms/s instead of 6.3–10.3 ms/s (production mode).
    collectDefaultMetrics({ register: this.registry, prefix: 'lookout_process_', eventLoopMonitoringPrecision: 100 });
    this.deliveries = new Counter({
      name: 'lookout_deliveries_total',
      help: 'Delivery attempts by kind and outcome (posted, retried, failed)',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'lookout_delivery_latency_seconds',
      help: 'From the decision (the row written) to the post, by kind',
      labelNames: ['kind'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
      registers,
    });
    this.api = new Histogram({
      name: 'lookout_api_request_duration_seconds',
      help: 'Analytics API calls (retries included) by operation and outcome (ok or the error kind)',
      labelNames: ['operation', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    this.requests = new Counter({
      name: 'lookout_requests_total',
      help: 'Slash commands, button clicks and modal submissions by outcome (ok, error, unknown)',
      labelNames: ['type', 'name', 'outcome'],
      registers,
    });
    this.refused = new Counter({
      name: 'lookout_requests_refused_total',
      help: "Requests to /slack/events the guard refused, by reason: too_large, unsigned, bad_signature, stale_timestamp and future_timestamp (signed, but more than 5 minutes from this replica's clock), not_a_payload, replay, unreadable",
      labelNames: ['reason'],
      registers,
    });

    this.trendPeriods = new Counter({
      name: 'lookout_trend_periods_total',
      help: 'Trend periods (days, hours, weeks) by where their figures came from: store (kept), api (fetched), or store_error (kept figures could not be read or written)',
      labelNames: ['source'],
      registers,
    });
    this.trendRechecks = new Counter({
      name: 'lookout_trend_rechecks_total',
      help: 'Kept provisional trend periods (younger than a few days, or a suspect empty answer) asked again, by whether that changed their figure',
      labelNames: ['changed'],
      registers,
    });

    this.homeRefreshes = new Counter({
      name: 'lookout_home_refreshes_total',
      help: 'Open App Home tabs worked out again after a change: queued (published through the outbox), unchanged (not published), failed (retried in 5 s)',
      labelNames: ['outcome'],
      registers,
    });
    this.watchEvaluations = new Counter({
      name: 'lookout_watch_evaluations_total',
      help: 'Watch evaluations by outcome: breach, update, recover, ok, unknown (the API failed or there was nothing to compare with), muted',
      labelNames: ['outcome'],
      registers,
    });
    this.watchExplanations = new Counter({
      name: 'lookout_watch_explanations_total',
      help: 'Watch alerts explained (what moved, who moved it), by outcome: explained, failed (the alert says it could not be told), superseded (a later period was evaluated first)',
      labelNames: ['outcome'],
      registers,
    });

    this.preflight = new Counter({
      name: 'lookout_slack_preflight_total',
      help: "Payloads that broke a rule of Slack's before they left, by method and outcome: fitted (changed, then sent), refused (a message sent as text alone, a view not sent)",
      labelNames: ['method', 'outcome'],
      registers,
    });

    if (probes.apiBudget) {
      const budget = probes.apiBudget.bind(probes);
      new Gauge({
        name: 'lookout_api_budget_waiting',
        help: "Background analytics API requests (digests, watches, the threat scan) waiting for the workspace's minute of requests",
        registers,
        collect() {
          this.set(budget().waiting);
        },
      });
      new Gauge({
        name: 'lookout_api_budget_waited',
        help: "Background analytics API requests that waited for the workspace's budget since start",
        registers,
        collect() {
          this.set(budget().waited);
        },
      });
    }

    const storeUp = new Gauge({
      name: 'lookout_store_up',
      help: 'Whether the store answered the last scrape',
      registers,
      collect: () => read(),
    });
    const byStatus = new Gauge({
      name: 'lookout_deliveries',
      help: 'Deliveries in the outbox by kind and status (pending, sending, posted, failed)',
      labelNames: ['kind', 'status'],
      registers,
      collect: () => read(),
    });
    const scanAge = new Gauge({
      name: 'lookout_scan_lag_seconds',
      help: 'Seconds since the last successful threat scan (absent before the first)',
      registers,
      collect: () => read(),
    });
    const holders = new Gauge({
      name: 'lookout_lease_holder',
      help: '1 for the replica holding each lease',
      labelNames: ['lease', 'owner'],
      registers,
      collect: () => read(),
    });
    // One read of the store per scrape, shared by the gauges that need it.
    let reading: Promise<void> | undefined;
    function read(): Promise<void> {
      return (reading ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const late = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('the store did not answer within 3 s')), 3_000);
          });
          const [counts, age, leases] = await Promise.race([
            Promise.all([probe.deliveries(), probe.scanAgeSeconds?.(), probe.leases?.() ?? []]),
            late,
          ]);
          byStatus.reset();
          for (const c of counts) byStatus.set({ kind: c.kind, status: c.status }, c.n);
          scanAge.reset();
          if (age !== undefined) scanAge.set(age);
          holders.reset();
          for (const l of leases) holders.set({ lease: l.key, owner: l.owner }, 1);
          storeUp.set(1);
        } catch (error) {
          storeUp.set(0);
          log.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'metrics: the store did not answer',
          );
        } finally {
          clearTimeout(timer);
        }
      })().finally(() => (reading = undefined)));
    }
  }

  /** Adds the probes a feature owns (read at each scrape from then on). */
  addProbes(probes: Omit<Partial<MetricProbes>, 'deliveries'>): void {
    Object.assign(this.probes, probes);
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
