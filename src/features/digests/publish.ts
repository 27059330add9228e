import type { Logger } from '../../platform/log.js';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { slackReason } from '../../platform/slack/poster.js';
import type { Db } from '../../platform/store/db.js';
import { TenantError, type Tenant } from '../../platform/tenancy/tenants.js';
import type { DigestContent } from './content.js';
import type { Digest } from './repo.js';
import { DIGEST } from './deliveries.js';
import { DigestRunRepo } from './runs.js';
import { nextRun } from './cron.js';

/**
 * How a digest's slot is posted. When `stopping` is aborted before the post goes out,
 * the slot is handed back (the claim released) instead, so a restart or another replica posts it.
 */
export type PostSlot = (digest: Digest, slot: Date, stopping: AbortSignal) => Promise<void>;

/** A slot is worth posting until the next one, and at least an hour. */
export function digestDeadline(digest: Pick<Digest, 'cron' | 'timeZone'>, slot: Date): Date {
  const next = nextRun(digest.cron, digest.timeZone, slot)?.getTime() ?? 0;
  return new Date(Math.max(next, slot.getTime() + 3_600_000));
}

/**
 * Renders a claimed slot and queues its delivery: the delivery row and the run's
 * 'queued' are written in one transaction, and only while this replica still holds the
 * claim. The delivery worker posts it, in the digest's workspace. Content that cannot be
 * fetched, or a workspace that cannot be served now (not connected, uninstalled), fails this
 * run only.
 */
export function digestPublisher(deps: {
  content: DigestContent;
  /** Each digest's workspace: its analytics account. */
  tenants: { of(team: string): Promise<Pick<Tenant, 'team' | 'account' | 'fetcher'>> };
  db: Db;
  log: Logger;
  owner: string;
  now?: () => Date;
  queued?: () => void;
}): PostSlot {
  const { content, db, log, owner } = deps;
  const now = deps.now ?? (() => new Date());
  const runs = new DigestRunRepo(db);
  return async (digest, slot, stopping) => {
    const where = { digest: digest.id, slot: slot.toISOString(), channel: digest.channelId };
    let message;
    try {
      const tenant = await deps.tenants.of(digest.teamId);
      message = await content.render(tenant, digest, slot, false);
    } catch (error) {
      if (error instanceof TenantError) {
        await runs.markFailed(digest.id, slot, error.message);
        log.warn(
          { ...where, team: digest.teamId, reason: error.code },
          'digest failed: its workspace cannot be served',
        );
        return;
      }
      const reason = slackReason(error);
      await runs.markFailed(digest.id, slot, reason);
      log.error({ ...where, reason }, 'digest failed: its content could not be fetched');
      return;
    }
    if (stopping.aborted) {
      await runs.release(digest.id, slot, owner);
      log.info(where, 'shutting down: digest slot handed back, not posted');
      return;
    }
    const queued = await db
      .transaction(async (tx) => {
        const delivery = await new DeliveryRepo(tx).enqueue({
          subject: DIGEST,
          team: digest.teamId,
          payload: { digestId: digest.id, slot },
          channelId: digest.channelId,
          message,
          expiresInMs: Math.max(60_000, digestDeadline(digest, slot).getTime() - now().getTime()),
        });
        if (await new DigestRunRepo(tx).markQueued(digest.id, slot, owner, delivery)) return true;
        throw new LostClaim();
      })
      .catch((error: unknown) => {
        if (error instanceof LostClaim) return false;
        throw error;
      });
    if (!queued) {
      log.warn(where, 'another replica took this digest slot over; not queued here');
      return;
    }
    log.info(where, 'digest queued');
    deps.queued?.();
  };
}

class LostClaim extends Error {}
