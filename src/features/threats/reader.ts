import type { VisitRecord } from '../../kernel/records.js';
import type { AlertCheck, SecurityFacts } from '../../kernel/verdict.js';
import type { Queryable } from '../../platform/store/db.js';

/** What one scan of an analytics account found: each new visitor's visits (oldest first) and security facts. */
export interface Found {
  visits: ReadonlyMap<string, VisitRecord[]>;
  facts: ReadonlyMap<string, SecurityFacts>;
  now: Date;
}

/** What a reader wrote of a scan: threat alerts raised, sightings recorded. */
export interface ReadCounts {
  alerts: number;
  sightings: number;
}

/** What the readers of some workspaces ask of the scan. */
export interface Interest {
  /** The security checks looked up for each new visitor. */
  checks: AlertCheck[];
  /**
   * Decides what the findings mean (reading the store only); returns the writing of it, run
   * in the scan's transaction with its watermark: a scan cut short leaves neither.
   */
  read(found: Found): Promise<(tx: Queryable) => Promise<ReadCounts>>;
}

/** Who reads the threat scan's findings (threat alerts); bound once, when the features are plugged. */
export interface ScanReader {
  /** What these workspaces ask for (undefined: every workspace); undefined while none asks, and there is nothing to scan. */
  interest(teams: readonly string[] | undefined): Promise<Interest | undefined>;
}
