/**
 * Encoded queries too long for a button value (2000 characters): the value carries
 * a short id instead and the query waits here, for the workspace that stashed it only.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from './db.js';

export interface QueryStash {
  put(team: string, encoded: string): Promise<string>;
  get(team: string, id: string): Promise<string | undefined>;
}

export class QueryStashRepo implements QueryStash {
  constructor(private readonly db: Queryable) {}

  /** Stores the workspace's encoded query under a new random id of 12 base64url characters (72 bits). */
  async put(team: string, encoded: string): Promise<string> {
    const id = randomBytes(9).toString('base64url');
    await this.db.query('INSERT INTO query_stash (id, encoded, team_id) VALUES ($1, $2, $3)', [id, encoded, team]);
    return id;
  }

  /** The query stashed under `id` by this workspace (another workspace's is not found). */
  async get(team: string, id: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ encoded: string }>(
      'SELECT encoded FROM query_stash WHERE id = $1 AND team_id = $2',
      [id, team],
    );
    return rows[0]?.encoded;
  }

  /** Deletes entries stored before `olderThan`; returns how many. */
  async prune(olderThan: Date): Promise<number> {
    const { rows } = await this.db.query('DELETE FROM query_stash WHERE created_at < $1 RETURNING id', [olderThan]);
    return rows.length;
  }
}
