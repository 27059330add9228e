import { ApiError } from '../../platform/api/errors.js';
import type { Logger } from '../../platform/log.js';
import { within } from '../../platform/within.js';
import type { DeliveryRepo } from '../../platform/deliveries/repo.js';
import type { InstallationRepo } from '../../platform/slack/installations.js';
import type { ConnectionRepo, ConnectionView } from '../../platform/tenancy/connections.js';
import type { Tenants } from '../../platform/tenancy/tenants.js';
import type { Queryable } from '../../platform/store/db.js';

export const CANCELLED = 'cancelled: Lookout was removed from this workspace';

/** How long a key's one trial request may take; the form shows the outcome when it comes (listeners.ts). */
export const TRIAL_TIMEOUT_MS = 10_000;

/** What a connection form gives back: the field a problem belongs beside, in words. */
export type Checked = { ok: true } | { ok: false; field: 'url' | 'key'; problem: string };

export interface WorkspaceDeps {
  db: Queryable;
  tenants: Tenants;
  deliveries: DeliveryRepo;
  connections?: ConnectionRepo;
  installations?: InstallationRepo;
  /** The base URLs a connection may use: the operator's (ANALYTICS_API_URL) and those they allow. */
  allowedOrigins: readonly string[];
  log: Logger;
}

/** The tables that keep nothing of a workspace (keyed by analytics account, or the platform's own). */
export const SHARED_TABLES = [
  'schema_migrations',
  'job_claims',
  'replay_keys',
  'rate_limits',
  'trend_points',
  'visitor_checks',
  'scan_state',
  'api_answers',
] as const;

/**
 * A workspace's connection to its analytics account, and its leaving: what `app_uninstalled`
 * and `tokens_revoked` stop, and the purge of everything it kept once its retention is over.
 */
export class WorkspaceService {
  constructor(private readonly deps: WorkspaceDeps) {}

  connection(team: string): Promise<ConnectionView | undefined> {
    return this.deps.connections?.get(team).then((c) => c && withoutKey(c)) ?? Promise.resolve(undefined);
  }

  /** Checks the URL and tries the key with one cheap request before anything is saved. */
  async connect(
    team: string,
    enterprise: string | undefined,
    user: string,
    url: string,
    key: string,
  ): Promise<Checked> {
    const { connections, tenants } = this.deps;
    if (!connections)
      return { ok: false, field: 'url', problem: 'This Lookout takes its analytics account from its configuration.' };
    const baseUrl = url.trim().replace(/\/+$/, '');
    let origin: string;
    try {
      origin = new URL(baseUrl).origin;
    } catch {
      return {
        ok: false,
        field: 'url',
        problem: 'That is not a URL. Paste the API’s base URL, like https://api.example.com/v1.',
      };
    }
    if (!this.deps.allowedOrigins.includes(origin))
      return {
        ok: false,
        field: 'url',
        problem: `This Lookout connects only to ${this.deps.allowedOrigins.join(', ')}. Ask whoever runs it to allow another.`,
      };
    const apiKey = key.trim();
    if (apiKey.length < 8 || /\s/.test(apiKey))
      return { ok: false, field: 'key', problem: 'That does not look like an API key.' };
    const trial = tenants.trial(baseUrl, apiKey, TRIAL_TIMEOUT_MS);
    try {
      await trial.report('countries', { startDate: '1970-01-01', endDate: '1970-01-01', limit: 1 });
    } catch (error) {
      const status = error instanceof ApiError ? error.info.status : undefined;
      if (status === 401 || status === 403)
        return { ok: false, field: 'key', problem: 'The analytics API refused this key. Check it and paste it again.' };
      return {
        ok: false,
        field: 'url',
        problem: `The analytics API did not answer as expected (${error instanceof Error ? error.message : 'no answer'}). Check the URL, or try again later.`,
      };
    } finally {
      await trial.close();
    }
    await connections.save({ team, ...(enterprise ? { enterprise } : {}), baseUrl, apiKey, connectedBy: user });
    this.deps.log.info({ team, by: user }, 'analytics connected');
    return { ok: true };
  }

  /**
   * `connect`, with its outcome as `early` when known within `ms` (else undefined, and it goes
   * on as `later`). Never rejects: a connection that cannot be saved is a problem to show.
   */
  async connectWithin(
    ms: number,
    ...args: Parameters<WorkspaceService['connect']>
  ): Promise<{ early: Checked | undefined; later: Promise<Checked> }> {
    const later = this.connect(...args).catch((error: unknown): Checked => {
      this.deps.log.error(
        { team: args[0], err: error instanceof Error ? error.message : String(error) },
        'could not save an analytics connection',
      );
      return { ok: false, field: 'key', problem: 'Lookout could not save the connection just now. Try again.' };
    });
    return { early: await within(later, ms).catch(() => undefined), later };
  }

  async disconnect(team: string, user: string): Promise<boolean> {
    const removed = (await this.deps.connections?.remove(team)) ?? false;
    if (removed) this.deps.log.info({ team, by: user }, 'analytics disconnected');
    return removed;
  }

  /** The app left the workspace: its tokens are dropped, what it had waiting cancelled, its settings kept. */
  async left(team: string, why: 'app_uninstalled' | 'tokens_revoked'): Promise<void> {
    await this.deps.installations?.uninstalled(team);
    this.deps.tenants.forget(team);
    const cancelled = await this.deps.deliveries.cancelTeam(team, CANCELLED);
    this.deps.log.warn({ team, why, cancelled }, 'Lookout left a workspace: its jobs stop, its settings are kept');
  }

  /** Everything kept of a workspace, in every table that names workspaces (its installation too unless kept); the rows removed. */
  async purge(team: string, { keepInstallation = false } = {}): Promise<number> {
    const { rows: found } = await this.deps.db.query<{ table_name: string }>(
      `SELECT DISTINCT table_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name = 'team_id' ORDER BY table_name`,
    );
    const tables = found.filter((t) => !(keepInstallation && t.table_name === 'installations'));
    let removed = 0;
    for (const { table_name } of tables) {
      const { rows } = await this.deps.db.query(`DELETE FROM ${table_name} WHERE team_id = $1 RETURNING 1`, [team]);
      removed += rows.length;
    }
    this.deps.log.warn({ team, removed }, 'purged everything Lookout kept of a workspace');
    return removed;
  }

  /** Purges every workspace the app left more than `retentionMs` ago; how many rows went. */
  async purgeLeft(before: Date): Promise<number> {
    let removed = 0;
    for (const team of (await this.deps.installations?.leftBefore(before)) ?? []) removed += await this.purge(team);
    return removed;
  }
}

function withoutKey(c: ConnectionView & { apiKey?: string }): ConnectionView {
  const { apiKey: _key, ...view } = c;
  return view;
}
