/**
 * Bolt's InstallationStore on Lookout's store: one row per installation, keyed by the workspace
 * (`team:<team_id>`) or, for an org-wide install, by the organisation (`enterprise:<enterprise_id>`).
 * A workspace inside an organisation that installed Lookout on its own is a team install, fetched by
 * its team. Every token is sealed (platform/secrets.ts) for its column and its row, so a sealed token
 * copied to another workspace's row does not open there.
 *
 * The user token, when the install asked for user scopes, is the installer's: it is returned only to a
 * query without a user or for that user.
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { Queryable } from '../store/db.js';
import { isStale, open, seal, type Keyring } from '../secrets.js';

type AnyInstallation = Installation<'v1' | 'v2', boolean>;

const SEALED = ['bot_token', 'bot_refresh_token', 'user_token', 'user_refresh_token'] as const;
type SealedColumn = (typeof SEALED)[number];

interface Row extends Record<SealedColumn, string | null> {
  id: string;
  installer_user_id: string;
  bot_token_expires_at: Date | null;
  user_token_expires_at: Date | null;
  installation: AnyInstallation | string;
}

/** The row id of an installation or a query; undefined when it names neither an organisation nor a workspace. */
export function installationId(
  q: { isEnterpriseInstall?: boolean; enterpriseId?: string; teamId?: string } | AnyInstallation,
): string | undefined {
  const [enterprise, team] =
    'user' in q ? [q.isEnterpriseInstall ? q.enterprise?.id : undefined, q.team?.id] : [q.enterpriseId, q.teamId];
  if (q.isEnterpriseInstall) return enterprise ? `enterprise:${enterprise}` : undefined;
  return team ? `team:${team}` : undefined;
}

/** Thrown by fetchInstallation when neither the workspace nor its organisation has installed Lookout. */
export class NotInstalledError extends Error {
  override readonly name = 'NotInstalledError';
}

/**
 * The condition on `installations` for those serving the workspace given as SQL (a parameter or a column):
 * its own install, else the org-wide install of the organisation a signed request or its connection linked it to.
 */
export const servingTeam = (team: string) =>
  `uninstalled_at IS NULL AND (id = 'team:' || ${team}
     OR id IN (SELECT 'enterprise:' || o.enterprise_id FROM org_workspaces o WHERE o.team_id = ${team}
               UNION SELECT 'enterprise:' || c.enterprise_id FROM workspaces c WHERE c.team_id = ${team} AND c.enterprise_id IS NOT NULL))`;

/** In an upsert: the stored user token stays when its own user stores the installation without one. */
const KEEP_USER_TOKEN =
  '(EXCLUDED.user_token IS NULL AND installations.installer_user_id = EXCLUDED.installer_user_id)';

const purpose = (column: SealedColumn, id: string) => `installations.${column}/${id}`;

const toDate = (seconds: number | undefined) => (seconds === undefined ? null : new Date(seconds * 1000));
const toSeconds = (date: Date | null) => (date === null ? undefined : Math.floor(new Date(date).getTime() / 1000));

export class InstallationRepo implements InstallationStore {
  constructor(
    private readonly db: Queryable,
    private readonly keys: Keyring,
  ) {}

  async storeInstallation(installation: AnyInstallation): Promise<void> {
    const id = installationId(installation);
    if (!id)
      throw new Error('An installation names neither its workspace nor, for an org-wide install, its organisation');
    const { bot, user } = installation;
    const sealOrNull = (value: string | undefined, column: SealedColumn) =>
      value ? seal(this.keys, value, purpose(column, id)) : null;
    const rest: AnyInstallation = {
      ...installation,
      bot: bot && { ...bot, token: '', refreshToken: undefined, expiresAt: undefined },
      user: { ...user, token: undefined, refreshToken: undefined, expiresAt: undefined },
    };
    // A user token not given again by its own user (Bolt stores what it fetched after refreshing the bot's token) is kept.
    await this.db.query(
      `INSERT INTO installations (id, team_id, enterprise_id, is_enterprise_install, installer_user_id,
         bot_token, bot_refresh_token, bot_token_expires_at, user_token, user_refresh_token, user_token_expires_at, installation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (id) DO UPDATE SET
         team_id = EXCLUDED.team_id,
         enterprise_id = EXCLUDED.enterprise_id,
         installer_user_id = EXCLUDED.installer_user_id,
         bot_token = EXCLUDED.bot_token,
         bot_refresh_token = EXCLUDED.bot_refresh_token,
         bot_token_expires_at = EXCLUDED.bot_token_expires_at,
         user_token = CASE WHEN ${KEEP_USER_TOKEN} THEN installations.user_token ELSE EXCLUDED.user_token END,
         user_refresh_token = CASE WHEN ${KEEP_USER_TOKEN} THEN installations.user_refresh_token ELSE EXCLUDED.user_refresh_token END,
         user_token_expires_at = CASE WHEN ${KEEP_USER_TOKEN} THEN installations.user_token_expires_at ELSE EXCLUDED.user_token_expires_at END,
         installation = EXCLUDED.installation,
         installed_at = CASE WHEN installations.uninstalled_at IS NULL THEN installations.installed_at ELSE now() END,
         updated_at = now(),
         uninstalled_at = NULL`,
      [
        id,
        installation.team?.id ?? null,
        installation.enterprise?.id ?? null,
        installation.isEnterpriseInstall === true,
        user.id,
        sealOrNull(bot?.token, 'bot_token'),
        sealOrNull(bot?.refreshToken, 'bot_refresh_token'),
        toDate(bot?.expiresAt),
        sealOrNull(user.token, 'user_token'),
        sealOrNull(user.refreshToken, 'user_refresh_token'),
        toDate(user.expiresAt),
        JSON.stringify(rest),
      ],
    );
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<AnyInstallation> {
    const id = installationId(query);
    const { rows } = id
      ? await this.db.query<Row>('SELECT * FROM installations WHERE id = $1 AND uninstalled_at IS NULL', [id])
      : { rows: [] };
    const row = rows[0];
    if (!row) throw new NotInstalledError(`Lookout is not installed in ${describe(query)}`);
    return this.toInstallation(row, query.userId);
  }

  /**
   * How to ask Bolt's `authorize` for a workspace's token: its own install, else the org-wide install of
   * the organisation it belongs to (as a signed request from it said, or its connection recorded);
   * undefined when neither is installed.
   */
  async queryFor(team: string): Promise<InstallationQuery<boolean> | undefined> {
    const { rows } = await this.db.query<{ id: string; enterprise_id: string | null; is_enterprise_install: boolean }>(
      `SELECT id, enterprise_id, is_enterprise_install FROM installations WHERE ${servingTeam('$1')}
        ORDER BY is_enterprise_install LIMIT 1`,
      [team],
    );
    const row = rows[0];
    if (!row) return undefined;
    return row.is_enterprise_install
      ? { teamId: team, enterpriseId: row.enterprise_id!, isEnterpriseInstall: true }
      : { teamId: team, enterpriseId: row.enterprise_id ?? undefined, isEnterpriseInstall: false };
  }

  /**
   * A workspace of an organisation that installed Lookout org-wide, as a signed request from it said: later
   * work in the workspace (a job, a request's own lookups) finds the organisation's token. Recorded only while
   * that organisation's installation exists.
   */
  async servedByOrg(team: string, enterprise: string): Promise<void> {
    await this.db.query(
      `INSERT INTO org_workspaces (team_id, enterprise_id)
       SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM installations WHERE id = 'enterprise:' || $2 AND uninstalled_at IS NULL)
       ON CONFLICT (team_id) DO UPDATE SET enterprise_id = EXCLUDED.enterprise_id, seen_at = now()
       WHERE org_workspaces.enterprise_id <> EXCLUDED.enterprise_id`,
      [team, enterprise],
    );
  }

  /**
   * Whether Lookout knows the workspace outside the organisation: its own installation (present or removed)
   * names another organisation, or none. A request saying the organisation's install serves it is not believed.
   */
  async outsideOrg(team: string, enterprise: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `SELECT 1 FROM installations WHERE id = 'team:' || $1 AND enterprise_id IS DISTINCT FROM $2`,
      [team, enterprise],
    );
    return rows.length > 0;
  }

  /**
   * The app left the workspace (app_uninstalled, or its bot token revoked): its tokens are dropped at once,
   * and the row stays, marked, so its settings are kept for the retention period. Its link to an organisation
   * ends too, so nothing is done for it with the organisation's token; a later signed request from the
   * organisation's install records it again. True when it was installed.
   */
  async uninstalled(team: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE installations SET bot_token = NULL, bot_refresh_token = NULL, bot_token_expires_at = NULL,
              user_token = NULL, user_refresh_token = NULL, user_token_expires_at = NULL,
              uninstalled_at = COALESCE(uninstalled_at, now()), updated_at = now()
        WHERE id = $1 RETURNING id`,
      [`team:${team}`],
    );
    await this.db.query('DELETE FROM org_workspaces WHERE team_id = $1', [team]);
    await this.db.query('UPDATE workspaces SET enterprise_id = NULL WHERE team_id = $1', [team]);
    return rows.length > 0;
  }

  /**
   * Who installed Lookout in the workspace (its own install; else the Org Admin who installed it org-wide for the
   * workspace's organisation: a Grid user id is the same in every workspace of it), if it is installed.
   */
  async installerOf(team: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ installer_user_id: string }>(
      `SELECT installer_user_id FROM installations WHERE ${servingTeam('$1')} ORDER BY is_enterprise_install LIMIT 1`,
      [team],
    );
    return rows[0]?.installer_user_id;
  }

  /** Workspaces the app left before `before`: their settings are due to be purged. */
  async leftBefore(before: Date): Promise<string[]> {
    const { rows } = await this.db.query<{ team_id: string }>(
      'SELECT team_id FROM installations WHERE uninstalled_at < $1 AND team_id IS NOT NULL',
      [before],
    );
    return rows.map((r) => r.team_id);
  }

  /** With a user: forgets that user's token only. Without: the whole installation, tokens and all. */
  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = installationId(query);
    if (!id) throw new Error(`Cannot delete an installation of ${describe(query)}`);
    if (query.userId === undefined) {
      await this.db.query('DELETE FROM installations WHERE id = $1', [id]);
      return;
    }
    await this.db.query(
      `UPDATE installations SET user_token = NULL, user_refresh_token = NULL, user_token_expires_at = NULL, updated_at = now()
       WHERE id = $1 AND installer_user_id = $2`,
      [id, query.userId],
    );
  }

  /**
   * Re-seals under the current key every token sealed under a previous one; returns how many rows changed.
   * A row written meanwhile (a refreshed token) is left as it is: what was written is sealed under the current key.
   */
  async resealAll(): Promise<number> {
    const current = `v1:${this.keys.current.id}:%`;
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM installations WHERE ${SEALED.map((c) => `${c} NOT LIKE $1`).join(' OR ')}`,
      [current],
    );
    let changed = 0;
    for (const row of rows) {
      const next = SEALED.map((c) => {
        const value = row[c];
        if (value === null || !isStale(this.keys, value, purpose(c, row.id))) return value;
        return seal(this.keys, open(this.keys, value, purpose(c, row.id)), purpose(c, row.id));
      });
      const result = await this.db.query(
        `UPDATE installations SET ${SEALED.map((c, i) => `${c} = $${i + 2}`).join(', ')}
         WHERE id = $1 AND ${SEALED.map((c, i) => `${c} IS NOT DISTINCT FROM $${i + 6}`).join(' AND ')}
         RETURNING id`,
        [row.id, ...next, ...SEALED.map((c) => row[c])],
      );
      changed += result.rows.length;
    }
    return changed;
  }

  private toInstallation(row: Row, userId: string | undefined): AnyInstallation {
    const stored = (
      typeof row.installation === 'string' ? JSON.parse(row.installation) : row.installation
    ) as AnyInstallation;
    const opened = (c: SealedColumn) => {
      const value = row[c];
      return value === null ? undefined : open(this.keys, value, purpose(c, row.id));
    };
    const own = userId === undefined || userId === row.installer_user_id;
    const installation: AnyInstallation = {
      ...stored,
      user: {
        ...stored.user,
        token: own ? opened('user_token') : undefined,
        refreshToken: own ? opened('user_refresh_token') : undefined,
        expiresAt: own ? toSeconds(row.user_token_expires_at) : undefined,
      },
    };
    const botToken = opened('bot_token');
    if (stored.bot && botToken) {
      installation.bot = {
        ...stored.bot,
        token: botToken,
        refreshToken: opened('bot_refresh_token'),
        expiresAt: toSeconds(row.bot_token_expires_at),
      };
    } else {
      delete installation.bot;
    }
    return installation;
  }
}

function describe(query: InstallationQuery<boolean>): string {
  return query.isEnterpriseInstall
    ? `organisation ${query.enterpriseId ?? '(none given)'} (org-wide install)`
    : `workspace ${query.teamId ?? '(none given)'}${query.enterpriseId ? ` of organisation ${query.enterpriseId}` : ''}`;
}
