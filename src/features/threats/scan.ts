import type { Logger } from '../../platform/log.js';
import type { Db } from '../../platform/store/db.js';
import type { LeaseRepo } from '../../platform/store/leases.js';
import { ScanLease } from './lease.js';
import { SecurityLookups } from './lookups.js';
import { scanAccount, type PassDeps, type ScannedAccount, type ScanResult } from './pass.js';
import type { ScanReader } from './reader.js';
import { scanStateKey, type ScanState, type ScanStateRepo } from './repos/scan-state.js';
import type { VisitorCheckRepo } from './repos/visitor-checks.js';

export type { ScannedAccount, ScanResult } from './pass.js';

export interface ThreatRepos {
  visitorChecks: VisitorCheckRepo;
  scanState: ScanStateRepo;
}

export interface ThreatScanOptions {
  /** Every analytics account and its workspaces (`Tenants.all`): each is scanned on its own. */
  tenants: { all(): Promise<{ account: ScannedAccount; teams?: string[] }[]> };
  repos: ThreatRepos;
  leases: LeaseRepo;
  /** The store the scan's decisions are written to, in one transaction. */
  db: Db;
  /** Told after a scan queued deliveries. */
  queued?: () => void;
  log: Logger;
  now: () => Date;
  /** This replica's name on the lease. */
  owner: string;
  /** ALERT_SCAN_INTERVAL. */
  intervalMs: number;
  /** ALERT_RECHECK_AFTER: a visitor's security answers are reused this long. */
  recheckMs: number;
  /** Visitors looked up at once. */
  concurrency?: number;
  pageSize?: number;
}

/** A scan of every account: the sums, `failed` when any account's scan failed, and each account's own result. */
export interface ScanResults extends ScanResult {
  accounts: (ScanResult & { account: string })[];
}

const LEGACY_SCAN_STATE_KEY = 'visits';

const nothing = (status: ScanResult['status']): ScanResults => ({
  status,
  visits: 0,
  visitors: 0,
  lookups: 0,
  alerts: 0,
  sightings: 0,
  accounts: [],
});

/**
 * Every interval, one replica (holding a lease in the store) reads each analytics account's
 * visits newer than its stored watermark, looks up the new visitors' security (cached for
 * ALERT_RECHECK_AFTER) and hands what it found to its reader (threat alerts), which decides
 * and writes with the watermark (pass.ts).
 */
export class ThreatScan {
  private timer?: NodeJS.Timeout;
  private running?: Promise<ScanResults>;
  private reader?: ScanReader;
  private readonly lease: ScanLease;
  private readonly lookups: SecurityLookups;
  /** The state kept before scans had an account has been moved to its account's key (once a process). */
  private adopted = false;

  constructor(private readonly options: ThreatScanOptions) {
    this.lease = new ScanLease(options.leases, options.owner, options.log);
    this.lookups = new SecurityLookups({
      visitorChecks: options.repos.visitorChecks,
      recheckMs: options.recheckMs,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    });
  }

  /** Who reads the scan's findings; until one does, there is nothing to scan for. */
  readBy(reader: ScanReader): void {
    if (this.reader) throw new Error('the threat scan has a reader already');
    this.reader = reader;
  }

  /** Where each analytics account's watermark is kept. */
  async stateKeys(): Promise<string[]> {
    return (await this.options.tenants.all()).map(({ account }) => scanStateKey(account.account));
  }

  /** Where the scan of an analytics account got to. */
  stateOf(account: string): Promise<ScanState | undefined> {
    return this.options.repos.scanState.get(scanStateKey(account));
  }

  /** Scans the account's visits from `at` on, unless it has been scanned already (a first subscription). */
  startAt(account: string, at: Date): Promise<boolean> {
    return this.options.repos.scanState.startAt(scanStateKey(account), at);
  }

  /** Whether anything of the workspace is read from the scan (otherwise it is off for it). */
  async scanning(team: string): Promise<boolean> {
    return (await this.reader?.interest([team])) !== undefined;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) =>
        this.options.log.error({ err: String(error) }, 'threat scan tick failed; the next tick retries'),
      );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.lease.release();
  }

  /** One tick: if this replica holds the lease, scan (never two scans at once here). */
  async tick(): Promise<ScanResults> {
    if (this.running) return this.running;
    this.running = (async () => {
      const ttl = this.options.intervalMs * 3;
      if (!(await this.lease.take(ttl))) return nothing('not-leader');
      return this.lease.holding(ttl, () => this.scan());
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Scans each analytics account in turn: its visits, for the readers of its workspaces
   * (every workspace's when one account serves every workspace). One account's failure is
   * recorded under its key and the others are scanned all the same.
   */
  async scan(): Promise<ScanResults> {
    const total = nothing('no-subscriptions');
    for (const { account, teams } of await this.options.tenants.all()) {
      let result: ScanResult;
      try {
        result = await scanAccount(this.passDeps(), account, teams);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.options.log.error({ account: account.account, err: message }, 'threat scan of an account failed');
        await this.options.repos.scanState
          .saveError(scanStateKey(account.account), message, this.options.now())
          .catch(() => undefined);
        result = { status: 'failed', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0, error: message };
      }
      total.accounts.push({ account: account.account, ...result });
      for (const key of ['visits', 'visitors', 'lookups', 'alerts', 'sightings'] as const) total[key] += result[key];
      if (result.status === 'failed') {
        total.status = 'failed';
        total.error ??= result.error;
      } else if (result.status === 'scanned' && total.status !== 'failed') total.status = 'scanned';
    }
    return total;
  }

  /**
   * Looks up at most `max` of these visitors not judged yet, with the checks the workspace's
   * readers ask for, and keeps their facts as a scan would (for watch explanations: a bounded
   * sample of a period's unjudged visitors). Returns how many were looked up; none while the scan is off.
   */
  async judgeSample(
    tenant: ScannedAccount & { team: string },
    visitorIds: readonly string[],
    max: number,
  ): Promise<number> {
    const interest = await this.reader?.interest([tenant.team]);
    if (!interest || max <= 0) return 0;
    return this.lookups.sample(tenant.api, tenant.account, visitorIds, interest.checks, max, this.options.now());
  }

  private passDeps(): PassDeps {
    const { repos, db, log, now, intervalMs, pageSize, queued } = this.options;
    return {
      scanState: repos.scanState,
      lookups: this.lookups,
      reader: this.reader,
      db,
      log,
      now,
      intervalMs,
      pageSize: pageSize ?? 1000,
      ...(queued ? { queued } : {}),
      adoptLegacy: async (stateKey) => {
        if (this.adopted) return;
        await repos.scanState.adopt(LEGACY_SCAN_STATE_KEY, stateKey);
        this.adopted = true;
      },
    };
  }
}
