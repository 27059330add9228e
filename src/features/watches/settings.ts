import { z } from 'zod';
import { duration, intBetween, withDefault } from '../../platform/settings.js';

export const watchSettings = () =>
  z.object({
    WATCHES_PER_CHANNEL: withDefault(intBetween(1, 1000), 10),
    WATCHES_PER_USER: withDefault(intBetween(1, 1000), 20),
    WATCH_SPREAD_HOURLY: withDefault(duration(0, 3_600_000, '20m'), '20m'),
    WATCH_SPREAD_DAILY: withDefault(duration(0, 86_400_000, '1h'), '1h'),
    WATCH_CLAIM_STALE: withDefault(duration(10_000, 3_600_000, '2m'), '2m'),
  });
