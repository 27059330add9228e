import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../platform/store/db.js';

/** A token as its owner sees it listed: never the token itself. */
export interface AgentTokenShown {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
  expiresAt: Date;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** A person's tokens for agents in one workspace: the token is given once, and only its sha256 is kept. */
export class AgentTokenRepo {
  constructor(private readonly db: Queryable) {}

  async create(
    team: string,
    user: string,
    name: string,
    ttlMs: number,
    now: Date,
  ): Promise<{ id: number; token: string }> {
    const token = `lka_${randomBytes(32).toString('base64url')}`;
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO agent_tokens (team_id, user_id, name, token_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [team, user, name, hashOf(token), now, new Date(now.getTime() + ttlMs)],
    );
    return { id: Number(rows[0]!.id), token };
  }

  /** Whose token it is; undefined when unknown, revoked or expired. Its last use becomes `now`. */
  async verify(token: string, now: Date): Promise<{ id: number; team: string; user: string } | undefined> {
    const { rows } = await this.db.query<{ id: string; team_id: string; user_id: string }>(
      `UPDATE agent_tokens SET last_used_at = $2
        WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2
        RETURNING id, team_id, user_id`,
      [hashOf(token), now],
    );
    const row = rows[0];
    return row && { id: Number(row.id), team: row.team_id, user: row.user_id };
  }

  /** The person's tokens in workspace `team` that are not revoked, oldest first. */
  async list(team: string, user: string): Promise<AgentTokenShown[]> {
    const { rows } = await this.db.query<{
      id: string;
      name: string;
      created_at: Date;
      last_used_at: Date | null;
      expires_at: Date;
    }>(
      `SELECT id, name, created_at, last_used_at, expires_at FROM agent_tokens
        WHERE team_id = $1 AND user_id = $2 AND revoked_at IS NULL ORDER BY id`,
      [team, user],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      createdAt: new Date(r.created_at),
      ...(r.last_used_at ? { lastUsedAt: new Date(r.last_used_at) } : {}),
      expiresAt: new Date(r.expires_at),
    }));
  }

  /** Revokes one of the person's tokens in workspace `team`; false when it is not theirs there, or already revoked. */
  async revoke(team: string, user: string, id: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE agent_tokens SET revoked_at = now()
        WHERE id = $3 AND team_id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id`,
      [team, user, id],
    );
    return rows.length > 0;
  }
}
