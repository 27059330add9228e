import { z } from 'zod';
import { defineSubject } from '../../platform/deliveries/subject.js';
import { WatchRepo } from './repo.js';

/**
 * A watch's alert. Once posted, later updates edit it in place and reply in its thread;
 * when Slack refuses it for good, the watch says why in its list.
 */
export const WATCH_ALERT = defineSubject({
  kind: 'watch',
  payload: z.object({ watchId: z.number().int(), episode: z.number().int() }),
  hooks: {
    async posted(tx, delivery, messageTs) {
      await new WatchRepo(tx).setAlertTs(delivery.payload.watchId, delivery.payload.episode, messageTs);
    },
    async failed(tx, delivery, failure) {
      await new WatchRepo(tx).setError(delivery.payload.watchId, `Slack refused its alert: ${failure.reason}`);
    },
  },
});

/** A reply in a watch alert's thread (still breached, or recovered). */
export const WATCH_REPLY = defineSubject({ kind: 'watch-reply', label: 'watch reply', payload: z.object({}) });

/** A watch's alert edited in place. */
export const WATCH_EDIT = defineSubject({ kind: 'watch-update', label: 'watch update', payload: z.object({}) });

export const WATCH_SUBJECTS = [WATCH_ALERT, WATCH_REPLY, WATCH_EDIT];
