/**
 * A workspace as Lookout serves it (a tenant): its Slack, through its own bot token, and its
 * analytics account. One workspace (SLACK_BOT_TOKEN) takes both from the environment; a
 * distributed app finds the token through Bolt's `authorize` (refreshed under token rotation)
 * and the account in the workspace's connection, made from its App Home.
 *
 * Analytics clients are kept per account, so workspaces on one account share its answers, and
 * two accounts never do. Its request budget is each workspace's own: a tenant's client charges
 * the workspace (the threat scan, per account, spends the account's).
 */
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { LRUCache } from 'lru-cache';
import { growingLru } from '../lru.js';
import { accountOf } from '../api/account.js';
import { AnalyticsApi } from '../api/analytics.js';
import { ApiBudget, chargedTo } from '../api/budget.js';
import type { HttpClientOptions } from '../api/client.js';
import { SharedFetcher, type SharedAnswers } from '../api/shared-fetcher.js';
import type { Logger } from '../log.js';
import { Access, type AccessRules } from '../slack/access.js';
import { webDirectory, type SlackDirectory } from '../slack/directory.js';
import type { ConnectionRepo } from './connections.js';

/** One analytics account: its client, and the answers its workspaces share. */
export interface Account {
  account: string;
  api: AnalyticsApi;
  fetcher: SharedFetcher;
  budget: ApiBudget;
}

/** A workspace Lookout serves: who it is, its analytics account (its requests charged to the workspace's `budget`), its Slack. */
export interface Tenant extends Account {
  team: string;
  directory: SlackDirectory;
  /** Who may do what in the workspace. */
  access: Access;
}

/** Why a workspace cannot be served: the app is not installed there, or no analytics account is connected. */
export class TenantError extends Error {
  override readonly name = 'TenantError';
  constructor(
    readonly code: 'not_installed' | 'not_connected',
    message: string,
  ) {
    super(message);
  }
}

/** A workspace's bot token (the environment's, or Bolt's `authorize` for a distributed app), and whether it is its organisation's. */
export type TokenSource = ((team: string) => Promise<{ token: string; orgWide?: boolean }>) & {
  /** Drops what is kept of the workspace's token (it was revoked, or the app uninstalled). */
  forget?(team: string): void;
};

export interface TenantsOptions {
  log: Logger;
  now: () => Date;
  /** Every analytics client's settings (not its URL or key). */
  api: Omit<HttpClientOptions, 'baseUrl' | 'apiKey' | 'budget'>;
  /** Analytics API requests a minute, per workspace (and per account for the threat scan). */
  apiBudget: number;
  /** Options of every Web API client (its base URL, timeout, logger); retries are Lookout's lookups'. */
  web: WebClientOptions;
  token: TokenSource;
  /** ADMIN_USERS and the security lists: one workspace's people (a distributed app has none: its rules default to everyone). */
  access: AccessRules;
  /** One workspace: its account from the environment. */
  single?: { baseUrl: string; apiKey: string };
  /** A distributed app: each workspace's connection. */
  connections?: ConnectionRepo;
  /** Replicas: answers shared among them (every account's fetcher looks there before asking the API). */
  answers?: SharedAnswers;
}

const UNCONNECTED =
  'Lookout is not connected to an analytics account in this workspace yet. A workspace admin connects it from Lookout’s App Home: open Lookout in the sidebar, then “Connect your analytics”.';

export class Tenants {
  private readonly accounts: LRUCache<string, Account>;
  private readonly clients = growingLru<string, WebClient>(2_000);
  private readonly directories = growingLru<string, SlackDirectory>(2_000);
  private readonly budgets = growingLru<string, ApiBudget>(10_000);
  /** Readiness probes' clients, by account (a probe asks a few accounts at most). */
  private readonly probes = growingLru<string, AnalyticsApi>(100, {
    dispose: (api) => void api.close().catch(() => undefined),
  });
  /** The environment's account (one workspace): never evicted. */
  private readonly own?: Account;

  constructor(private readonly o: TenantsOptions) {
    this.accounts = growingLru<string, Account>(1_000, {
      dispose: (a) => void a.api.close().catch(() => undefined),
    });
    if (o.single) this.own = this.open(o.single.baseUrl, o.single.apiKey);
  }

  get distributed(): boolean {
    return this.own === undefined;
  }

  /** The workspace's tenant; throws TenantError when it has no analytics account (or, in time, no installation). */
  async of(team: string): Promise<Tenant> {
    // A distributed app serves only workspaces it is installed in (the token throws TenantError otherwise).
    if (!this.own) await this.o.token(team);
    const account = await this.accountOf(team);
    const budget = this.budgetOf(team);
    return {
      team,
      account: account.account,
      api: charging(account.api, budget),
      fetcher: charging(account.fetcher, budget),
      budget,
      directory: this.directory(team),
      access: this.access(team),
    };
  }

  /** The workspace's analytics API budget (one workspace: its account's, as the account is its alone). */
  private budgetOf(team: string): ApiBudget {
    if (this.own) return this.own.budget;
    let budget = this.budgets.get(team);
    if (!budget) {
      budget = new ApiBudget(this.o.apiBudget);
      this.budgets.set(team, budget);
    }
    return budget;
  }

  /** Who may do what in the workspace: membership asked of its own Slack. */
  access(team: string): Access {
    const directory = this.directory(team);
    return new Access(this.o.access, (user, channel) => directory.isMember(user, channel));
  }

  /** The workspace's analytics account. */
  async accountOf(team: string): Promise<Account> {
    if (this.own) return this.own;
    const c = await this.o.connections!.get(team);
    if (!c) throw new TenantError('not_connected', UNCONNECTED);
    return this.cached(c.baseUrl, c.apiKey);
  }

  /**
   * Every analytics account with its workspaces (the threat scan's work). One workspace's
   * account serves every workspace (`teams` undefined: rows of any team are its own).
   */
  async all(): Promise<{ account: Account; teams?: string[] }[]> {
    if (this.own) return [{ account: this.own }];
    const byAccount = new Map<string, { account: Account; teams: string[] }>();
    for (const c of await this.o.connections!.list()) {
      const entry = byAccount.get(c.account) ?? { account: this.cached(c.baseUrl, c.apiKey), teams: [] };
      entry.teams.push(c.team);
      byAccount.set(c.account, entry);
    }
    return [...byAccount.values()];
  }

  /**
   * Up to `n` analytics accounts to probe for readiness, each with its base URL and one of its
   * workspaces: one workspace's account, or a random few of a distributed app's connected ones.
   * Each comes with a client of its own that asks once, within `timeoutMs`: a probe learns
   * whether the API answers now, not after the retries a person's request is given.
   */
  async sample(n: number, timeoutMs: number): Promise<{ api: AnalyticsApi; baseUrl: string; team?: string }[]> {
    const chosen = this.o.single
      ? [{ baseUrl: this.o.single.baseUrl, apiKey: this.o.single.apiKey }]
      : await this.o.connections!.sample(n);
    return chosen.map((c) => {
      const account = accountOf(c.baseUrl, c.apiKey);
      let api = this.probes.get(account);
      if (!api) {
        api = this.trial(c.baseUrl, c.apiKey, timeoutMs);
        this.probes.set(account, api);
      }
      return { api, baseUrl: c.baseUrl, ...('team' in c ? { team: c.team } : {}) };
    });
  }

  /**
   * A Web API client with the workspace's current bot token (a fresh one under token rotation). It does not
   * retry unless `options` say so: the Web API client's own default retries for half an hour.
   */
  async web(team: string, options: WebClientOptions = {}): Promise<WebClient> {
    const { token, orgWide } = await this.o.token(team);
    const key = `${JSON.stringify(options.retryConfig ?? null)}|${options.rejectRateLimitedCalls === true}|${team}|${token}`;
    let client = this.clients.get(key);
    if (!client) {
      // An org-wide token names the workspace on every call, as Bolt's own clients do for an org-wide install.
      const where = orgWide ? { teamId: team } : {};
      client = new WebClient(token, { retryConfig: { retries: 0 }, ...this.o.web, ...options, ...where });
      this.clients.set(key, client);
    }
    return client;
  }

  /** The workspace's lookups in Slack (channels by name, time zones, members), kept per workspace. */
  directory(team: string): SlackDirectory {
    let directory = this.directories.get(team);
    if (!directory) {
      const retryConfig = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000 };
      directory = webDirectory(() => this.web(team, { retryConfig }), this.o.log.child({ component: 'slack', team }));
      this.directories.set(team, directory);
    }
    return directory;
  }

  /** Forgets the workspace's token and clients (the app left it). */
  forget(team: string): void {
    this.o.token.forget?.(team);
    this.directories.delete(team);
  }

  /** Background requests waiting for a budget now, and that waited, over every workspace and account. */
  waitingForBudgets(): { waiting: number; waited: number } {
    let waiting = 0;
    let waited = 0;
    const accounts = this.own ? [this.own] : [...this.accounts.values()];
    for (const budget of [...this.budgets.values(), ...accounts.map((a) => a.budget)]) {
      waiting += budget.waiting;
      waited += budget.waited;
    }
    return { waiting, waited };
  }

  /** An analytics client for a URL and key, not kept: to try a key before it is saved, within `timeoutMs`, once. */
  trial(baseUrl: string, apiKey: string, timeoutMs: number): AnalyticsApi {
    return new AnalyticsApi({ ...this.o.api, baseUrl, apiKey, timeoutMs, retry: { retries: 0 } });
  }

  async close(): Promise<void> {
    await this.own?.api.close();
    this.accounts.clear();
    this.probes.clear();
  }

  private cached(baseUrl: string, apiKey: string): Account {
    const account = accountOf(baseUrl, apiKey);
    let found = this.accounts.get(account);
    if (!found) {
      found = this.open(baseUrl, apiKey);
      this.accounts.set(account, found);
    }
    return found;
  }

  private open(baseUrl: string, apiKey: string): Account {
    const budget = new ApiBudget(this.o.apiBudget);
    const api = new AnalyticsApi({ ...this.o.api, baseUrl, apiKey, budget });
    const fetcher = new SharedFetcher(api, { now: this.o.now, shared: this.o.answers });
    return { account: api.account, api, fetcher, budget };
  }
}

/** `target` (and what it holds) with every method's analytics API requests charged to `budget`. */
function charging<T extends object>(target: T, budget: ApiBudget): T {
  return new Proxy(target, {
    get(t, key) {
      const value: unknown = Reflect.get(t, key, t);
      if (typeof value === 'function')
        return (...args: unknown[]) => chargedTo(budget, () => (value as (...a: unknown[]) => unknown).apply(t, args));
      return value !== null && typeof value === 'object' ? charging(value, budget) : value;
    },
  });
}
