import { z } from 'zod';
import { defineSubject } from '../../platform/deliveries/subject.js';
import { HomeViewRepo } from './repo.js';

/** A Home publish is worth trying for this long; a later change or opening the tab publishes afresh anyway. */
export const HOME_PUBLISH_DEADLINE_MS = 3_600_000;

/** A person's App Home published again. Refused for good: what the person sees is unknown, so the next change publishes again. */
export const HOME = defineSubject({
  kind: 'home',
  via: 'home',
  payload: z.object({ user: z.string() }),
  hooks: {
    async failed(tx, delivery) {
      await new HomeViewRepo(tx).published(delivery.team, delivery.payload.user, null);
    },
  },
});
