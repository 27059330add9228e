/**
 * What /readyz checks of the platform, in the deployment's mode, each failure told in an
 * operator's words. One workspace: the store, its analytics account, the clock. A distributed
 * app: the store, Slack's Web API (every install and every workspace's answer goes through it),
 * a sample of the connected analytics accounts, the clock; never a workspace of its own, as it
 * has none.
 */
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { ApiError, type ApiErrorKind } from './api/errors.js';
import type { Check } from './ops.js';
import type { Db } from './store/index.js';
import type { Tenants } from './tenancy/tenants.js';

/** Connected accounts a probe asks at most, and how long the choice of them is kept. */
export const ACCOUNT_SAMPLE = 3;
const SAMPLE_TTL_MS = 60_000;
/** Each account is asked once and awaited this long, inside the probe's 3 s, so a slow one is named as such. */
const ACCOUNT_TIMEOUT_MS = 2_500;

export interface ReadinessOptions {
  db: Db;
  tenants: Tenants;
  clock: Check;
  /** A distributed app's Slack Web API settings (its base URL, timeout, fetch); absent for one workspace. */
  slack?: { url: string; options: WebClientOptions };
}

/** Failures that are the analytics API's own answer, not a failure to reach it. */
const ANSWERED: ReadonlySet<ApiErrorKind> = new Set(['unauthorized', 'not_found', 'bad_request', 'rate_limited']);

const textOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An analytics API failure as an operator reads it: its kind, the HTTP status, what the API said. */
export function apiReason(error: unknown): string {
  if (!(error instanceof ApiError)) return textOf(error);
  const status = error.info.status ? ` (HTTP ${error.info.status})` : '';
  return `${error.kind}${status}${error.info.detail ? `: ${error.info.detail}` : ''}`;
}

/** A base URL's origin: never a path's token or a userinfo. */
function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return 'an unreadable base URL';
  }
}

export function readinessChecks(o: ReadinessOptions): Record<string, Check> {
  const store: Check = () =>
    o.db.query('select 1').catch((error: unknown) => {
      throw new Error(`the store did not answer a query: ${textOf(error)}`);
    });
  const samples = new LRUCache<'sample', Awaited<ReturnType<Tenants['sample']>>>({
    max: 1,
    ttl: SAMPLE_TTL_MS,
    fetchMethod: () => o.tenants.sample(ACCOUNT_SAMPLE, ACCOUNT_TIMEOUT_MS),
  });
  const api: Check = async () => {
    const sample = await samples.fetch('sample').catch((error: unknown) => {
      throw new Error(`could not read which analytics accounts to ask: ${textOf(error)}`);
    });
    // A distributed app before any workspace connects has no account to reach: nothing is missing.
    if (!sample || sample.length === 0) return;
    const reasons: string[] = [];
    const asked = sample.map(async ({ api, baseUrl, team }) => {
      try {
        await api.report('countries', { startDate: '1970-01-01', endDate: '1970-01-01', limit: 1 });
      } catch (error) {
        // In a distributed app an API that answers at all is reached: one customer's revoked key is theirs to
        // fix from Lookout's Home, which an unready replica could not serve.
        if (o.slack && error instanceof ApiError && ANSWERED.has(error.kind)) return;
        const where = team ? `workspace ${team}'s, at ${originOf(baseUrl)}` : `at ${originOf(baseUrl)}`;
        reasons.push(`${where}: ${apiReason(error)}`);
        throw error;
      }
    });
    // One account that answers shows this replica reaches the analytics API; one that does not is its workspace's trouble.
    await Promise.any(asked).catch(() => {
      throw new Error(
        sample.length === 1
          ? `the analytics API did not answer a one-row report (${reasons[0]})`
          : `none of the ${sample.length} sampled analytics accounts answered a one-row report (${reasons.join('; ')})`,
      );
    });
  };
  if (!o.slack) return { store, api, clock: o.clock };
  const { url, options } = o.slack;
  const web = new WebClient(undefined, { ...options, retryConfig: { retries: 0 } });
  const slack: Check = () =>
    web.api.test().catch((error: unknown) => {
      throw new Error(`Slack's Web API at ${originOf(url)} did not answer api.test: ${textOf(error)}`);
    });
  return { store, slack, api, clock: o.clock };
}
