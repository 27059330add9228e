/**
 * Each workspace's connection to its analytics account (a distributed app): the base URL,
 * the key (sealed for its workspace's row; only its last four characters are ever shown),
 * and the account they name. One workspace takes its account from the environment instead.
 */
import { accountOf } from '../api/account.js';
import { isStale, open, seal, type Keyring } from '../secrets.js';
import { servingTeam } from '../slack/installations.js';
import type { Queryable } from '../store/db.js';

export interface Connection {
  team: string;
  enterprise?: string;
  baseUrl: string;
  apiKey: string;
  /** The key's last four characters: all that is shown of it. */
  last4: string;
  account: string;
  connectedBy: string;
  connectedAt: Date;
}

/** A connection as shown: never its key. */
export type ConnectionView = Omit<Connection, 'apiKey'>;

interface Row {
  team_id: string;
  enterprise_id: string | null;
  api_base_url: string;
  api_key: string;
  api_key_last4: string;
  account: string;
  connected_by: string;
  connected_at: Date;
}

const purpose = (team: string) => `workspaces.api_key/${team}`;

/** A connection's workspace (`w`) has Lookout installed, by its own installation or its organisation's. */
const INSTALLED = `EXISTS (SELECT 1 FROM installations WHERE ${servingTeam('w.team_id')})`;

export const last4 = (key: string) => key.slice(-4);

export class ConnectionRepo {
  constructor(
    private readonly db: Queryable,
    private readonly keys: Keyring,
  ) {}

  async get(team: string): Promise<Connection | undefined> {
    const { rows } = await this.db.query<Row>('SELECT * FROM workspaces WHERE team_id = $1', [team]);
    return rows[0] && this.toConnection(rows[0]);
  }

  async save(c: { team: string; enterprise?: string; baseUrl: string; apiKey: string; connectedBy: string }) {
    await this.db.query(
      `INSERT INTO workspaces (team_id, enterprise_id, api_base_url, api_key, api_key_last4, account, connected_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (team_id) DO UPDATE SET enterprise_id = EXCLUDED.enterprise_id, api_base_url = EXCLUDED.api_base_url,
         api_key = EXCLUDED.api_key, api_key_last4 = EXCLUDED.api_key_last4, account = EXCLUDED.account,
         connected_by = EXCLUDED.connected_by, connected_at = now()`,
      [
        c.team,
        c.enterprise ?? null,
        c.baseUrl,
        seal(this.keys, c.apiKey, purpose(c.team)),
        last4(c.apiKey),
        accountOf(c.baseUrl, c.apiKey),
        c.connectedBy,
      ],
    );
  }

  /** True when there was one. */
  async remove(team: string): Promise<boolean> {
    const { rows } = await this.db.query('DELETE FROM workspaces WHERE team_id = $1 RETURNING team_id', [team]);
    return rows.length > 0;
  }

  /** Every connection of a workspace Lookout is installed in: the threat scan's work, by account. */
  async list(): Promise<Connection[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT w.* FROM workspaces w
        WHERE ${INSTALLED}
        ORDER BY w.team_id`,
    );
    return rows.map((r) => this.toConnection(r));
  }

  /**
   * Up to `n` connections of installed workspaces, one per account, chosen at random: what the
   * readiness probe asks the analytics API, so a probe costs at most `n` requests however many connect.
   */
  async sample(n: number): Promise<Connection[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM (SELECT DISTINCT ON (w.account) w.* FROM workspaces w
                       WHERE ${INSTALLED}
                       ORDER BY w.account, w.team_id) one_per_account
        ORDER BY random() LIMIT $1`,
      [n],
    );
    return rows.map((r) => this.toConnection(r));
  }

  /** Seals again under the current key every key sealed under a previous one; how many changed. */
  async resealAll(): Promise<number> {
    const { rows } = await this.db.query<Row>('SELECT * FROM workspaces WHERE api_key NOT LIKE $1', [
      `v1:${this.keys.current.id}:%`,
    ]);
    let changed = 0;
    for (const row of rows) {
      if (!isStale(this.keys, row.api_key, purpose(row.team_id))) continue;
      const resealed = seal(this.keys, open(this.keys, row.api_key, purpose(row.team_id)), purpose(row.team_id));
      const result = await this.db.query(
        'UPDATE workspaces SET api_key = $2 WHERE team_id = $1 AND api_key = $3 RETURNING team_id',
        [row.team_id, resealed, row.api_key],
      );
      changed += result.rows.length;
    }
    return changed;
  }

  private toConnection(row: Row): Connection {
    return {
      team: row.team_id,
      ...(row.enterprise_id ? { enterprise: row.enterprise_id } : {}),
      baseUrl: row.api_base_url,
      apiKey: open(this.keys, row.api_key, purpose(row.team_id)),
      last4: row.api_key_last4,
      account: row.account,
      connectedBy: row.connected_by,
      connectedAt: new Date(row.connected_at),
    };
  }
}
