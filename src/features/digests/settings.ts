import { z } from 'zod';
import { duration, intBetween, withDefault } from '../../platform/settings.js';

export const digestSettings = () =>
  z.object({
    DIGEST_MIN_INTERVAL: withDefault(duration(60_000, 7 * 86_400_000, '1h'), '1h'),
    DIGESTS_PER_CHANNEL: withDefault(intBetween(1, 1000), 10),
    DIGESTS_PER_USER: withDefault(intBetween(1, 1000), 20),
    DIGEST_RELOAD: withDefault(duration(1000, 3_600_000, '30s'), '30s'),
  });
