/**
 * A person's tokens for agents outside Slack: made once and shown once (`lka_` and 32 random
 * bytes), kept only as their sha256, each with a name, its last use and its expiry.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../platform/store/db.js';

const PREFIX = 'lka_';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export class AgentTokenRepo {
  constructor(private readonly db: Queryable) {}

  async create(
    team: string,
    user: string,
    name: string,
    ttlMs: number,
    now: Date,
  ): Promise<{ id: number; token: string }> {
    const token = PREFIX + randomBytes(32).toString('base64url');
    const { rows } = await this.db.query<{ id: number }>(
      `INSERT INTO agent_tokens (team_id, user_id, name, token_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [team, user, name, hashOf(token), now, new Date(now.getTime() + ttlMs)],
    );
    return { id: rows[0]!.id, token };
  }

  /** Whose the token is; undefined when it is unknown, revoked or expired. Its use is recorded. */
  async verify(token: string, now: Date): Promise<{ id: number; team: string; user: string } | undefined> {
    if (!token.startsWith(PREFIX)) return undefined;
    const { rows } = await this.db.query<{ id: number; team_id: string; user_id: string }>(
      `UPDATE agent_tokens SET last_used_at = $2
        WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2
        RETURNING id, team_id, user_id`,
      [hashOf(token), now],
    );
    const row = rows[0];
    return row && { id: row.id, team: row.team_id, user: row.user_id };
  }

  /** The person's live tokens in the workspace (not revoked), newest first. */
  async list(
    team: string,
    user: string,
  ): Promise<{ id: number; name: string; createdAt: Date; lastUsedAt?: Date; expiresAt: Date }[]> {
    const { rows } = await this.db.query<{
      id: number;
      name: string;
      created_at: Date;
      last_used_at: Date | null;
      expires_at: Date;
    }>(
      `SELECT id, name, created_at, last_used_at, expires_at FROM agent_tokens
        WHERE team_id = $1 AND user_id = $2 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
      [team, user],
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      createdAt: new Date(r.created_at),
      ...(r.last_used_at ? { lastUsedAt: new Date(r.last_used_at) } : {}),
      expiresAt: new Date(r.expires_at),
    }));
  }

  /** Revokes one of the person's own tokens; false when they have no such live token. */
  async revoke(team: string, user: string, id: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE agent_tokens SET revoked_at = now()
        WHERE id = $1 AND team_id = $2 AND user_id = $3 AND revoked_at IS NULL RETURNING id`,
      [id, team, user],
    );
    return rows.length > 0;
  }
}
