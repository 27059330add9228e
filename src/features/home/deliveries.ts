import type { SubjectHooks } from '../../platform/deliveries/worker.js';
import type { Queryable } from '../../platform/store/db.js';
import { HomeViewRepo } from './repo.js';

export const HOME_SUBJECT = 'home';

/** A Home publish is worth trying for this long; a later change or opening the tab publishes afresh anyway. */
export const HOME_PUBLISH_DEADLINE_MS = 3_600_000;

/** A Home publish Slack refused for good: what the person sees is unknown, so the next change publishes again. */
export const homeDeliveryHooks: SubjectHooks = {
  async failed(tx: Queryable, delivery) {
    const user = (delivery.subject as { user?: unknown } | undefined)?.user;
    if (typeof user === 'string') await new HomeViewRepo(tx).published(user, null);
  },
};
