/**
 * What operators scrape at /metrics (Prometheus text, prom-client). The platform's own:
 * deliveries by kind and outcome with their latency, analytics API calls, commands and
 * interactions by outcome, requests the guard refused, payloads the preflight fitted or
 * refused, and, read from the store at each scrape, the outbox by status and who holds each
 * lease. A feature adds its own through the same object (`counter`, `storeGauge`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './log.js';
import { within } from './within.js';

/** A metric's name, help and labels. */
export interface MetricSpec<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/** One value of a gauge read from the store. */
export interface Reading<L extends string> {
  labels?: Partial<Record<L, string>>;
  value: number;
}

/** What the platform reads from the store at each scrape. */
export interface MetricProbes {
  deliveries(): Promise<{ kind: string; status: string; n: number }[]>;
  /** Who holds the given leases now. */
  leases(keys: readonly string[]): Promise<{ key: string; owner: string }[]>;
  /** Background analytics API requests waiting for the workspace's budget now, and that waited, ever. */
  apiBudget?(): { waiting: number; waited: number };
}

/** How long one scrape waits for the store before it shows lookout_store_up 0. */
const STORE_READ_MS = 3_000;

export class Metrics {
  readonly registry = new Registry();
  readonly deliveries: Counter<'kind' | 'outcome'>;
  readonly deliveryLatency: Histogram<'kind'>;
  readonly api: Histogram<'operation' | 'outcome'>;
  readonly requests: Counter<'type' | 'name' | 'outcome'>;
  readonly refused: Counter<'reason'>;
  readonly preflight: Counter<'method' | 'outcome'>;

  private readonly reads: (() => Promise<() => void>)[] = [];
  private readonly leaseKeys = new Set<string>();
  private reading: Promise<void> | undefined;

  constructor(
    private readonly probes: MetricProbes,
    private readonly log: Logger,
  ) {
    // The event-loop delay is sampled every 100 ms, not every 10 ms: idle CPU 4.0–4.3 ms/s instead of 6.3–10.3 ms/s (production mode).
    collectDefaultMetrics({ register: this.registry, prefix: 'lookout_process_', eventLoopMonitoringPrecision: 100 });
    this.deliveries = this.counter({
      name: 'lookout_deliveries_total',
      help: 'Delivery attempts by kind and outcome (posted, retried, failed)',
      labelNames: ['kind', 'outcome'],
    });
    this.deliveryLatency = new Histogram({
      name: 'lookout_delivery_latency_seconds',
      help: 'From the decision (the row written) to the post, by kind',
      labelNames: ['kind'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
      registers: [this.registry],
    });
    this.api = new Histogram({
      name: 'lookout_api_request_duration_seconds',
      help: 'Analytics API calls (retries included) by operation and outcome (ok or the error kind)',
      labelNames: ['operation', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [this.registry],
    });
    this.requests = this.counter({
      name: 'lookout_requests_total',
      help: 'Slash commands, button clicks and modal submissions by outcome (ok, error, unknown)',
      labelNames: ['type', 'name', 'outcome'],
    });
    this.refused = this.counter({
      name: 'lookout_requests_refused_total',
      help: "Requests to /slack/events and Slack-signed requests to /mcp refused, by reason: too_large, unsigned, bad_signature, stale_timestamp and future_timestamp (signed, but more than 5 minutes from this replica's clock), not_a_payload, replay, unreadable",
      labelNames: ['reason'],
    });
    this.preflight = this.counter({
      name: 'lookout_slack_preflight_total',
      help: "Payloads that broke a rule of Slack's before they left, by method and outcome: fitted (changed, then sent), refused (a message sent as text alone, a view not sent)",
      labelNames: ['method', 'outcome'],
    });
    if (probes.apiBudget) {
      const budget = probes.apiBudget.bind(probes);
      this.gauge({
        name: 'lookout_api_budget_waiting',
        help: "Background analytics API requests (those no person is waiting for) waiting for the workspace's minute of requests",
        read: () => budget().waiting,
      });
      this.gauge({
        name: 'lookout_api_budget_waited',
        help: "Background analytics API requests that waited for the workspace's budget since start",
        read: () => budget().waited,
      });
    }
    const readStore = () => this.readStore();
    new Gauge({
      name: 'lookout_store_up',
      help: 'Whether the store answered the last scrape',
      registers: [this.registry],
      async collect() {
        this.set((await readStore()) ? 1 : 0);
      },
    });
    this.storeGauge(
      {
        name: 'lookout_deliveries',
        help: 'Deliveries in the outbox by kind and status (pending, sending, posted, failed)',
        labelNames: ['kind', 'status'],
      },
      async () => (await probes.deliveries()).map((c) => ({ labels: { kind: c.kind, status: c.status }, value: c.n })),
    );
    this.storeGauge(
      { name: 'lookout_lease_holder', help: '1 for the replica holding each lease', labelNames: ['lease', 'owner'] },
      async () =>
        this.leaseKeys.size === 0
          ? []
          : (await probes.leases([...this.leaseKeys])).map((l) => ({
              labels: { lease: l.key, owner: l.owner },
              value: 1,
            })),
    );
  }

  /** A counter in this registry. */
  counter<L extends string>(spec: MetricSpec<L>): Counter<L> {
    return new Counter({ ...spec, labelNames: spec.labelNames ?? [], registers: [this.registry] });
  }

  /** A gauge worked out at each scrape from memory. */
  gauge(spec: MetricSpec<never> & { read: () => number }): void {
    const { read, ...rest } = spec;
    new Gauge({
      ...rest,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * A gauge read from the store at each scrape: every such read of one scrape runs together,
   * within 3 s; one that fails or is late leaves every store gauge empty and lookout_store_up 0.
   */
  storeGauge<L extends string>(spec: MetricSpec<L>, read: () => Promise<readonly Reading<L>[]>): void {
    const gauge = new Gauge({
      ...spec,
      labelNames: spec.labelNames ?? [],
      registers: [this.registry],
      collect: () => this.readStore().then(() => undefined),
    });
    this.reads.push(async () => {
      const readings = await read();
      return () => {
        gauge.reset();
        for (const r of readings) {
          if (r.labels) gauge.set(r.labels, r.value);
          else gauge.set(r.value);
        }
      };
    });
  }

  /** Leases whose holder lookout_lease_holder shows. */
  showLeases(...keys: string[]): void {
    for (const key of keys) this.leaseKeys.add(key);
  }

  /** One read of the store per scrape, shared by every gauge that needs it; whether it answered. */
  private readStore(): Promise<boolean> {
    this.reading ??= (async () => {
      try {
        const apply = await within(
          Promise.all(this.reads.map((r) => r())),
          STORE_READ_MS,
          () => new Error(`the store did not answer within ${STORE_READ_MS / 1000} s`),
        );
        for (const set of apply) set();
      } catch (error) {
        this.log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'metrics: the store did not answer',
        );
        throw error;
      }
    })().finally(() => (this.reading = undefined));
    return this.reading.then(
      () => true,
      () => false,
    );
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
