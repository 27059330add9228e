/**
 * Evaluates watches: every tick, each active watch whose period is final at the API (and
 * whose place in the spread has come) is claimed by one replica, observed, decided
 * (plan.ts), and its decision and deliveries are written in one transaction. Figures not
 * settled yet hand the claim back, to be judged on a later tick. A replica that dies
 * after its claim leaves it to be taken over; a period is recorded once.
 */
import pLimit from 'p-limit';
import { ApiError } from '../../platform/api/errors.js';
import { TimedOut, within } from '../../platform/within.js';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { mrkdwn } from '../../platform/slack/kit/limits.js';
import type { Logger } from '../../platform/log.js';
import type { Db, Queryable } from '../../platform/store/db.js';
import { TenantError, type Tenant } from '../../platform/tenancy/tenants.js';
import { dayLabel, type ApiDays, type Trend } from '../../kernel/trend.js';
import type { TrendService } from '../trends/index.js';
import { watchAlertMessage, watchReply, type UsualPoint } from './blocks.js';
import { canLookBack } from './observe.js';
import type { WatchObserver } from './observe.js';
import type { Explanation } from './explanation-text.js';
import type { WatchExplainer } from './explainer.js';
import type { Changed } from '../../platform/changes.js';
import { againstUsual, decide, describeObservation, stateAfter, type DecisionKind, type Observation } from './plan.js';
import { chartPeriodList, chartPeriods, lastPeriod, SETTLE_WAIT_MS, spreadOffset, type WatchPeriod } from './period.js';
import { WatchRepo, type Watch } from './repo.js';
import { WATCH_ALERT, WATCH_EDIT, WATCH_REPLY } from './deliveries.js';

/** What an alert charts: the trend up to the period judged, or each period beside its usual. */
type Charted = { trend: Trend } | { usual: UsualPoint[] };

/** A watch waiting for settled figures is tried again after this long (answers are shared for a minute). */
const RETRY_WAITING_MS = 2 * 60_000;

export interface WatchEvaluatorOptions {
  db: Db;
  /** Each watch's workspace: its analytics account. */
  tenants: { of(team: string): Promise<Pick<Tenant, 'team' | 'account' | 'fetcher' | 'api'>> };
  observer: WatchObserver;
  /** For the small chart in an alert (left out when it cannot be built). */
  trends?: TrendService;
  /** When a period is final at the API: a watch judges it then, not before. */
  apiDays: ApiDays;
  owner: string;
  now: () => Date;
  log: Logger;
  /** Wakes the delivery worker. */
  queued: () => void;
  demo: boolean;
  /** How often due watches are looked for. */
  tickMs?: number;
  /** Evaluations of a period start over this-many ms after it is final at the API (each watch at its own offset): hourly, daily. */
  spreadMs?: { hour: number; day: number };
  /** A claim not recorded within this long is taken over (its replica died). */
  staleMs?: number;
  /** Watches evaluated at once. */
  concurrency?: number;
  /** Told each evaluation's outcome (for /metrics). */
  observe?: (outcome: DecisionKind | 'muted') => void;
  deliveryDeadlineMs?: number;
  /** Told whose watch was evaluated (App Home shows its state). */
  changed?: Changed;
  /** Explains each alert once it is out, editing it in place (left out: alerts are not explained). */
  explainer?: Pick<WatchExplainer, 'explain'>;
  /** Told each explanation's outcome (for /metrics): a superseded one lost to a later period's evaluation. */
  explained?: (outcome: 'explained' | 'failed' | 'superseded') => void;
  /** An explanation not ready within this long says so in the alert (default 60 s). */
  explainTimeoutMs?: number;
}

const DEFAULTS = {
  tickMs: 30_000,
  spreadMs: { hour: 20 * 60_000, day: 60 * 60_000 },
  staleMs: 120_000,
  concurrency: 4,
  deliveryDeadlineMs: 6 * 3_600_000,
  explainTimeoutMs: 60_000,
};

export class WatchEvaluator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly repo: WatchRepo;
  /** Watches waiting for settled figures, and when each is tried again (ms): not every tick, as each try may ask the API. */
  private readonly waiting = new Map<number, number>();
  /** Explanations under way (stop waits for them). */
  private readonly explaining = new Set<Promise<void>>();

  constructor(private readonly options: WatchEvaluatorOptions) {
    this.repo = new WatchRepo(options.db);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? DEFAULTS.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await Promise.all(this.explaining);
  }

  /** One pass over the due watches; never throws (a failure is logged and the next tick tries again). */
  async tick(): Promise<number> {
    if (this.running) return 0;
    const work = this.evaluateDue().catch((error: unknown) => {
      this.options.log.error({ err: (error as Error).message }, 'watch evaluation failed; trying again next tick');
      return 0;
    });
    this.running = work;
    try {
      return await work;
    } finally {
      this.running = undefined;
    }
  }

  private async evaluateDue(): Promise<number> {
    const now = this.options.now();
    const spread = this.options.spreadMs ?? DEFAULTS.spreadMs;
    const due: { watch: Watch; period: WatchPeriod }[] = [];
    for (const watch of await this.repo.listActive()) {
      const period = lastPeriod(watch.rule.every, watch.timeZone, now, this.options.apiDays);
      if (!period || period.key === watch.lastPeriod) continue;
      if (period.elapsedMs < spreadOffset(watch.id, spread[watch.rule.every])) continue;
      if ((this.waiting.get(watch.id) ?? 0) > now.getTime()) continue;
      due.push({ watch, period });
    }
    const limit = pLimit(this.options.concurrency ?? DEFAULTS.concurrency);
    const done = await Promise.all(
      due.map(({ watch, period }) =>
        limit(() =>
          this.evaluate(watch, period).catch((error: unknown) => {
            this.options.log.error(
              { watch: watch.id, period: period.key, err: (error as Error).message },
              'watch evaluation failed',
            );
            return false;
          }),
        ),
      ),
    );
    return done.filter(Boolean).length;
  }

  /** Claims, observes, decides and records one watch's period; false when another replica has it. */
  async evaluate(watch: Watch, period: WatchPeriod): Promise<boolean> {
    const { owner, log } = this.options;
    const claimed = await this.repo.claim(watch.id, period.key, owner, this.options.staleMs ?? DEFAULTS.staleMs);
    if (!claimed) return false;
    const observation = await this.observe(claimed, period);
    const now = this.options.now();
    if (!observation.ok && observation.wait && now.getTime() - period.dueAt < SETTLE_WAIT_MS[claimed.rule.every]) {
      // Figures not settled yet (a suspect empty answer, a partial one): judged again on a later tick.
      await this.repo.release(watch.id, period.key, owner);
      this.waiting.set(watch.id, now.getTime() + RETRY_WAITING_MS);
      log.info({ watch: watch.id, period: period.key, reason: observation.error }, 'watch waits for settled figures');
      return false;
    }
    this.waiting.delete(watch.id);
    const kind = decide(claimed.rule.condition, claimed.state, observation);
    const text = observation.ok ? describeObservation(claimed.rule, observation, kind) : observation.error;
    const muted = claimed.mutedUntil !== undefined && claimed.mutedUntil > now;
    const state = stateAfter(claimed.state, kind);
    const charted =
      !muted && (kind === 'breach' || kind === 'update' || kind === 'recover')
        ? await this.chart(claimed, period)
        : undefined;
    if (kind === 'unknown')
      log.warn({ watch: watch.id, period: period.key, error: text }, 'watch evaluated to unknown: nothing decided');

    let posted = false;
    const recorded = await this.options.db.transaction(async (tx) => {
      const repo = new WatchRepo(tx);
      const after = await repo.record(watch.id, owner, {
        period: period.key,
        outcome: kind,
        ...(observation.ok ? { value: observation.value } : { error: observation.error }),
        text,
        state,
        at: now,
        ...(kind === 'breach' ? { breach: { at: now } } : {}),
      });
      if (!after) return undefined;
      if (!muted) posted = await this.deliver(tx, after, kind, text, now, charted);
      return after;
    });
    if (!recorded) return false;
    this.options.observe?.(muted && kind !== 'ok' && kind !== 'unknown' ? 'muted' : kind);
    if (posted) {
      this.options.queued();
      if (kind === 'breach' || kind === 'update' || kind === 'recover') this.explainLater(recorded, period, charted);
    }
    this.options.changed?.({ users: [claimed.ownerId] });
    log.info({ watch: watch.id, period: period.key, outcome: kind, muted }, 'watch evaluated');
    return true;
  }

  /**
   * What the watch measures for the period, in its workspace's account; a workspace that
   * cannot be served now (not connected, uninstalled) makes the period unknown, with why.
   */
  private async observe(watch: Watch, period: WatchPeriod): Promise<Observation> {
    let tenant;
    try {
      tenant = await this.options.tenants.of(watch.teamId);
    } catch (error) {
      if (!(error instanceof TenantError)) throw error;
      this.options.log.warn(
        { watch: watch.id, team: watch.teamId, reason: error.code },
        'watch not evaluated: its workspace cannot be served',
      );
      return { ok: false, error: error.message };
    }
    return this.options.observer.observe(tenant, watch.rule, period, watch.timeZone);
  }

  /** The deliveries a decision makes, in the decision's transaction. */
  private async deliver(
    tx: Queryable,
    watch: Watch,
    kind: DecisionKind,
    text: string,
    now: Date,
    charted: Charted | undefined,
  ): Promise<boolean> {
    if (kind !== 'breach' && kind !== 'update' && kind !== 'recover') return false;
    const outbox = new DeliveryRepo(tx);
    const expiresInMs = this.options.deliveryDeadlineMs ?? DEFAULTS.deliveryDeadlineMs;
    const alert = watchAlertMessage({
      ...watch,
      text,
      timeZone: watch.timeZone,
      apiZone: this.options.apiDays.timeZone,
      now,
      demo: this.options.demo,
      ...charted,
    });
    const base = { team: watch.teamId, channelId: watch.channelId, expiresInMs };
    // A breach that began while muted has no alert yet: its first update (once unmuted) posts it; its recovery posts nothing.
    if (kind === 'recover' && watch.alertDelivery === undefined) return false;
    if (kind === 'breach' || (kind === 'update' && watch.alertDelivery === undefined)) {
      const id = await outbox.enqueue({
        ...base,
        subject: WATCH_ALERT,
        payload: { watchId: watch.id, episode: watch.episode },
        message: alert,
      });
      await new WatchRepo(tx).setAlertDelivery(watch.id, watch.episode, id);
      return true;
    }
    // Replies go into the alert's thread (or after it, should it have failed); the parent is edited once it has a ts.
    const thread = watch.alertTs
      ? { threadTs: watch.alertTs }
      : watch.alertDelivery
        ? { threadOf: watch.alertDelivery }
        : {};
    await outbox.enqueue({ ...base, subject: WATCH_REPLY, message: watchReply(kind, text), ...thread });
    if (watch.alertTs) await outbox.enqueue({ ...base, subject: WATCH_EDIT, message: alert, updateTs: watch.alertTs });
    return true;
  }

  /**
   * Explains the period once its alert is out: what moved and who moved it, written to the
   * watch (for the period it explains) and the alert edited in place through the outbox. The
   * alert never waits for it. A failure is said in the alert, logged and counted.
   */
  private explainLater(watch: Watch, period: WatchPeriod, charted: Charted | undefined): void {
    const { explainer, log } = this.options;
    if (!explainer) return;
    const work = (async () => {
      let explanation: Explanation;
      try {
        const tenant = await this.options.tenants.of(watch.teamId);
        explanation = await within(
          explainer.explain(tenant, watch.rule, period, watch.timeZone),
          this.options.explainTimeoutMs ?? DEFAULTS.explainTimeoutMs,
        );
        this.options.explained?.('explained');
      } catch (error) {
        log.warn({ watch: watch.id, period: period.key, err: String(error) }, 'watch alert not explained');
        // The API's own words (they name no secret); anything else is logged, not shown.
        const reason =
          error instanceof ApiError
            ? error.message
            : error instanceof TimedOut
              ? error.message
              : 'an unexpected error, logged';
        this.options.explained?.('failed');
        explanation = {
          period: period.key,
          text: mrkdwn(`*Why it moved:* could not be told (${escapeMrkdwn(reason)}).`).text.slice(0, 3000),
          verdict: 'unknown: could not be told',
          flagged: [],
          flaggedCount: 0,
        };
      }
      const now = this.options.now();
      const queued = await this.options.db.transaction(async (tx) => {
        const fresh = await new WatchRepo(tx).setExplanation(watch.id, explanation);
        if (!fresh) this.options.explained?.('superseded');
        if (!fresh || (fresh.mutedUntil !== undefined && fresh.mutedUntil > now)) return false;
        const where = fresh.alertTs
          ? { updateTs: fresh.alertTs }
          : fresh.alertDelivery !== undefined
            ? { updateOf: fresh.alertDelivery }
            : undefined;
        if (!where) return false;
        const message = watchAlertMessage({
          ...fresh,
          text: fresh.lastText ?? '',
          apiZone: this.options.apiDays.timeZone,
          now,
          demo: this.options.demo,
          ...charted,
        });
        await new DeliveryRepo(tx).enqueue({
          team: fresh.teamId,
          channelId: fresh.channelId,
          expiresInMs: this.options.deliveryDeadlineMs ?? DEFAULTS.deliveryDeadlineMs,
          subject: WATCH_EDIT,
          message,
          ...where,
        });
        return true;
      });
      if (queued) this.options.queued();
    })().catch((error: unknown) =>
      log.error({ watch: watch.id, period: period.key, err: (error as Error).message }, 'watch explanation failed'),
    );
    this.explaining.add(work);
    void work.finally(() => this.explaining.delete(work));
  }

  /**
   * The watched figure up to the period judged, for the alert's chart: complete periods only.
   * A rule judged against the usual charts each period beside its usual, observed as the period
   * judged was (its last point is the alert's figure and usual).
   */
  private async chart(watch: Watch, period: WatchPeriod): Promise<Charted | undefined> {
    if (againstUsual(watch.rule.condition) && canLookBack(watch.rule)) {
      try {
        const tenant = await this.options.tenants.of(watch.teamId);
        const periods = chartPeriodList(period, watch.timeZone);
        const seen = await this.options.observer.history(tenant, watch.rule, periods, watch.timeZone);
        const usual = periods.flatMap((p, i) => {
          const o = seen[i];
          if (!o?.ok || o.baseline === undefined) return [];
          const label = p.hour === undefined ? dayLabel(p.date) : `${String(p.hour).padStart(2, '0')}:00`;
          return [{ label, value: o.value, usual: o.baseline }];
        });
        return { usual };
      } catch (error) {
        this.options.log.warn({ watch: watch.id, err: (error as Error).message }, 'watch chart left out');
        return undefined;
      }
    }
    const trend = await this.trendChart(watch, period);
    return trend ? { trend } : undefined;
  }

  private async trendChart(watch: Watch, period: WatchPeriod): Promise<Trend | undefined> {
    if (!this.options.trends || watch.rule.metric === 'bots') return undefined;
    const { range, shown } = chartPeriods(period);
    try {
      const source = await this.options.tenants.of(watch.teamId);
      const trend = await this.options.trends.series(source, {
        report: watch.rule.report,
        filters: watch.rule.filters,
        metric: watch.rule.metric,
        range,
        timeZone: watch.timeZone,
      });
      return { ...trend, begun: Math.min(trend.begun ?? shown, shown), partial: false };
    } catch (error) {
      this.options.log.warn({ watch: watch.id, err: (error as Error).message }, 'watch chart left out');
      return undefined;
    }
  }
}
