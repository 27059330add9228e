/** Scheduled digests: which reports go to which channel, when, and in which time zone. */
import type { FilterGroup } from '../../kernel/filters.js';
import type { Queryable } from '../../platform/store/db.js';
import { fromRow } from '../../platform/store/rows.js';

/** What a person chose; `cron` on the digest is derived from it (schedule.ts toCron). */
export type { DigestSchedule } from './cron.js';
import type { DigestSchedule } from './cron.js';

export interface DigestInput {
  teamId: string;
  channelId: string;
  ownerId: string;
  /** Report ids, in the order they are posted. */
  reports: string[];
  /** Filter groups (ORed), each a list of ANDed filters. Default none. */
  filters?: FilterGroup[];
  topN: number;
  /** The period each run reports on: day, week or month (see period.ts). */
  period: string;
  schedule: DigestSchedule;
  /** The five-field expression derived from schedule. */
  cron: string;
  timeZone: string;
  paused?: boolean;
}

export interface Digest extends Required<DigestInput> {
  id: number;
  /** Why Slack refuses its channel (gone, archived, Lookout not a member), until a post succeeds or the digest is edited. */
  attention?: string;
  /** Its next slot, as the scheduler computed it (undefined until it has: new, edited or resumed). */
  nextRunAt?: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** Any fields but the workspace; the rest stay as they were. */
export type DigestPatch = Partial<Omit<DigestInput, 'teamId'>>;

/** Input field → column, and whether it is stored as jsonb. */
const COLUMNS: Record<keyof DigestPatch, { column: string; json?: true }> = {
  channelId: { column: 'channel_id' },
  ownerId: { column: 'owner_id' },
  reports: { column: 'reports', json: true },
  filters: { column: 'filters', json: true },
  topN: { column: 'top_n' },
  period: { column: 'period' },
  schedule: { column: 'schedule', json: true },
  cron: { column: 'cron' },
  timeZone: { column: 'time_zone' },
  paused: { column: 'paused' },
};

const toDigest = (row: Record<string, unknown>): Digest => ({ ...fromRow<Digest>(row), id: Number(row.id) });

export class DigestRepo {
  constructor(private readonly db: Queryable) {}

  async create(input: DigestInput): Promise<Digest> {
    const { rows } = await this.db.query(
      `INSERT INTO digests (team_id, channel_id, owner_id, reports, filters, top_n, period, schedule, cron, time_zone, paused)
       VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8::jsonb, $9, $10, $11)
       RETURNING *`,
      [
        input.teamId,
        input.channelId,
        input.ownerId,
        JSON.stringify(input.reports),
        JSON.stringify(input.filters ?? []),
        input.topN,
        input.period,
        JSON.stringify(input.schedule),
        input.cron,
        input.timeZone,
        input.paused ?? false,
      ],
    );
    return toDigest(rows[0]!);
  }

  /** A digest by an id that came from the store (the scheduler, a delivery). */
  async get(id: number): Promise<Digest | undefined> {
    const { rows } = await this.db.query('SELECT * FROM digests WHERE id = $1', [id]);
    return rows[0] && toDigest(rows[0]);
  }

  /** The workspace's digest by an id a request carried; undefined when the workspace has none by that id. */
  async of(team: string, id: number): Promise<Digest | undefined> {
    const { rows } = await this.db.query('SELECT * FROM digests WHERE id = $1 AND team_id = $2', [id, team]);
    return rows[0] && toDigest(rows[0]);
  }

  /** Changes the given fields and bumps updated_at; undefined when the workspace has no such digest. */
  async update(team: string, id: number, patch: DigestPatch): Promise<Digest | undefined> {
    const params: unknown[] = [id, team];
    const sets = ['updated_at = now()', 'attention = NULL'];
    // A new schedule, zone or pause: the scheduler works out the next slot again.
    if (patch.cron !== undefined || patch.timeZone !== undefined || patch.paused !== undefined)
      sets.push('next_run_at = NULL');
    for (const [key, value] of Object.entries(patch)) {
      const spec = COLUMNS[key as keyof DigestPatch];
      if (!spec || value === undefined) continue;
      params.push(spec.json ? JSON.stringify(value) : value);
      sets.push(`${spec.column} = $${params.length}${spec.json ? '::jsonb' : ''}`);
    }
    const { rows } = await this.db.query(
      `UPDATE digests SET ${sets.join(', ')} WHERE id = $1 AND team_id = $2 RETURNING *`,
      params,
    );
    return rows[0] && toDigest(rows[0]);
  }

  /**
   * Marks the digest's channel as refused by Slack; the digest as it was before, so only the
   * first refusal tells its owner (two at once: the row lock orders them, and the second
   * re-reads `attention`).
   */
  async markAttention(id: number, reason: string): Promise<Digest | undefined> {
    const first = await this.db.query(
      'UPDATE digests SET attention = $2 WHERE id = $1 AND attention IS NULL RETURNING *',
      [id, reason],
    );
    if (first.rows[0]) return { ...toDigest(first.rows[0]), attention: undefined };
    const { rows } = await this.db.query('UPDATE digests SET attention = $2 WHERE id = $1 RETURNING *', [id, reason]);
    return rows[0] && toDigest(rows[0]);
  }

  /** A post reached the channel: whatever needed attention is fixed. */
  async clearAttention(id: number): Promise<void> {
    await this.db.query('UPDATE digests SET attention = NULL WHERE id = $1 AND attention IS NOT NULL', [id]);
  }

  setPaused(team: string, id: number, paused: boolean): Promise<Digest | undefined> {
    return this.update(team, id, { paused });
  }

  /** Removes the digest and its runs; false when the workspace had none by that id. */
  async remove(team: string, id: number): Promise<boolean> {
    const { rows } = await this.db.query('DELETE FROM digests WHERE id = $1 AND team_id = $2 RETURNING id', [id, team]);
    return rows.length > 0;
  }

  /** How many of the workspace's digests post in `channelId`, and how many `ownerId` owns (`except` left out: the one being edited). */
  async counts(
    team: string,
    channelId: string,
    ownerId: string,
    except = 0,
  ): Promise<{ channel: number; owner: number }> {
    const { rows } = await this.db.query<{ channel: number; owner: number }>(
      `SELECT count(*) FILTER (WHERE channel_id = $1)::int AS channel, count(*) FILTER (WHERE owner_id = $2)::int AS owner
         FROM digests WHERE team_id = $4 AND id <> $3 AND (channel_id = $1 OR owner_id = $2)`,
      [channelId, ownerId, except, team],
    );
    return rows[0] ?? { channel: 0, owner: 0 };
  }

  async listByChannel(team: string, channelId: string): Promise<Digest[]> {
    return this.list('WHERE team_id = $1 AND channel_id = $2', [team, channelId]);
  }

  /** Who owns the workspace's digests that post in these channels. */
  async ownersIn(team: string, channels: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ owner_id: string }>(
      'SELECT DISTINCT owner_id FROM digests WHERE team_id = $1 AND channel_id = ANY($2::text[])',
      [team, channels],
    );
    return rows.map((r) => r.owner_id);
  }

  /** Every digest of the workspace. */
  async listAll(team: string): Promise<Digest[]> {
    return this.list('WHERE team_id = $1', [team]);
  }

  /** Every active digest, of every workspace (the scheduler's catch-up). */
  async listActive(): Promise<Digest[]> {
    return this.list('WHERE NOT paused', []);
  }

  private async list(where: string, params: unknown[]): Promise<Digest[]> {
    const { rows } = await this.db.query(`SELECT * FROM digests ${where} ORDER BY id`, params);
    return rows.map(toDigest);
  }
}
