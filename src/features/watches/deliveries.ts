import type { SubjectHooks } from '../../platform/deliveries/worker.js';
import type { Queryable } from '../../platform/store/db.js';
import { WatchRepo } from './repo.js';

function watchOf(subject: unknown): { watchId: number; episode: number } | undefined {
  const s = subject as { watchId?: unknown; episode?: unknown } | undefined;
  return typeof s?.watchId === 'number' && typeof s.episode === 'number' ? { watchId: s.watchId, episode: s.episode } : undefined;
}

/**
 * What a watch alert's delivery means for the watch: once posted, later updates edit it
 * in place and reply in its thread; when Slack refuses it for good, the watch says why
 * in its list.
 */
export const watchDeliveryHooks: SubjectHooks = {
  async posted(tx: Queryable, delivery, messageTs) {
    const watch = watchOf(delivery.subject);
    if (watch) await new WatchRepo(tx).setAlertTs(watch.watchId, watch.episode, messageTs);
  },
  async failed(tx: Queryable, delivery, failure) {
    const watch = watchOf(delivery.subject);
    if (watch) await tx.query('UPDATE watches SET last_error = $2 WHERE id = $1', [watch.watchId, `Slack refused its alert: ${failure.reason}`]);
  },
};
