/** Where the threat scan of each analytics account got to: its watermark, its last scan and its last error. */
import type { Queryable } from '../../../platform/store/db.js';
import { fromRow } from '../../../platform/store/rows.js';

/** Where the scan of an analytics account keeps its watermark (`visits` before scans had an account). */
export function scanStateKey(account: string): string {
  return `visits@${account}`;
}

/** Whatever a scan counted (visits, checked, alerts, …). */
export type ScanCounts = Record<string, number>;

export interface ScanProgress {
  /** The latest visit time handled; null before the first. */
  watermark: Date | null;
  /** The ids of the visits handled AT the watermark instant. */
  seenIds: string[];
  counts: ScanCounts;
  /** When the scan finished. */
  at: Date;
}

export interface ScanState {
  key: string;
  watermark?: Date;
  seenIds: string[];
  /** The last successful scan. */
  lastScanAt?: Date;
  /** The last failure since the last successful scan. */
  lastError?: string;
  lastErrorAt?: Date;
  /** The counts of the last successful scan. */
  lastCounts?: ScanCounts;
  updatedAt: Date;
}

const toScanState = (row: Record<string, unknown>) => fromRow<ScanState>(row);

export class ScanStateRepo {
  constructor(private readonly db: Queryable) {}

  async get(key: string): Promise<ScanState | undefined> {
    const { rows } = await this.db.query('SELECT * FROM scan_state WHERE key = $1', [key]);
    return rows[0] && toScanState(rows[0]);
  }

  /**
   * Moves the state kept under `from` (before scans had an account) to `to`, unless `to`
   * already has one; true when it moved. Run by the scan once, before it reads its state.
   */
  async adopt(from: string, to: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'UPDATE scan_state SET key = $2 WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM scan_state WHERE key = $2) RETURNING key',
      [from, to],
    );
    return rows.length > 0;
  }

  /** Starts scanning from `at` when nothing has been scanned yet (a first subscription); false when already started. */
  async startAt(key: string, at: Date): Promise<boolean> {
    const { rows } = await this.db.query(
      'INSERT INTO scan_state (key, watermark) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key',
      [key, at],
    );
    return rows.length > 0;
  }

  /** Records a successful scan: watermark, seen ids and counts as given; clears the last error. */
  async saveProgress(key: string, progress: ScanProgress): Promise<ScanState> {
    const { rows } = await this.db.query(
      `INSERT INTO scan_state (key, watermark, seen_ids, last_scan_at, last_counts)
       VALUES ($1, $2, $3::jsonb, $4, $5::jsonb)
       ON CONFLICT (key) DO UPDATE SET
         watermark = EXCLUDED.watermark, seen_ids = EXCLUDED.seen_ids, last_scan_at = EXCLUDED.last_scan_at,
         last_counts = EXCLUDED.last_counts, last_error = NULL, last_error_at = NULL, updated_at = now()
       RETURNING *`,
      [key, progress.watermark, JSON.stringify(progress.seenIds), progress.at, JSON.stringify(progress.counts)],
    );
    return toScanState(rows[0]!);
  }

  /** Records a failed scan; the watermark, seen ids and last counts stay as they were. */
  async saveError(key: string, error: string, at: Date): Promise<ScanState> {
    const { rows } = await this.db.query(
      `INSERT INTO scan_state (key, last_error, last_error_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET last_error = EXCLUDED.last_error, last_error_at = EXCLUDED.last_error_at, updated_at = now()
       RETURNING *`,
      [key, error, at],
    );
    return toScanState(rows[0]!);
  }
}
