import type { Logger } from '../../platform/log.js';
import type { LeaseRepo } from '../../platform/store/leases.js';

/** The threat scan's lease in the store. */
export const SCAN_LEASE_KEY = 'threat-scan';
/**
 * The key replicas of earlier versions take for the scan (migration 020 says why). Held too,
 * so that no such replica scans at the same time; a later release stops taking it.
 */
export const LEGACY_SCAN_LEASE_KEY = 'threat-watch';
export const SCAN_LEASE_KEYS: readonly string[] = [SCAN_LEASE_KEY, LEGACY_SCAN_LEASE_KEY];

/** One replica at a time scans: the one holding every key of the scan's lease. */
export class ScanLease {
  constructor(
    private readonly leases: LeaseRepo,
    private readonly owner: string,
    private readonly log: Logger,
  ) {}

  /** Takes (or renews) every key; false, keeping none it took, while another replica holds one. */
  async take(ttlMs: number): Promise<boolean> {
    const taken: string[] = [];
    for (const key of SCAN_LEASE_KEYS) {
      if (await this.leases.acquire(key, this.owner, ttlMs)) {
        taken.push(key);
        continue;
      }
      for (const held of taken) await this.leases.release(held, this.owner);
      return false;
    }
    return true;
  }

  /** Runs `work` holding the lease, renewed however long it takes, so no other replica scans the same visits. */
  async holding<T>(ttlMs: number, work: () => Promise<T>): Promise<T> {
    const renewal = setInterval(() => {
      this.take(ttlMs).then(
        (kept) => kept || this.log.error({ owner: this.owner }, "the threat scan's lease was lost during a scan"),
        (error: unknown) =>
          this.log.warn({ err: String(error) }, "could not renew the threat scan's lease; trying again"),
      );
    }, ttlMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(renewal);
    }
  }

  async release(): Promise<void> {
    for (const key of SCAN_LEASE_KEYS) await this.leases.release(key, this.owner).catch(() => undefined);
  }
}
