import { z } from 'zod';
import { duration, intBetween, withDefault } from '../../platform/settings.js';

export const homeSettings = () =>
  z.object({
    HOME_REFRESH_DELAY: withDefault(duration(0, 60_000, '1s'), '1s'),
    HOME_REFRESH_BURST: withDefault(intBetween(1, 100), 20),
    HOME_REFRESHES_PER_MINUTE: withDefault(intBetween(1, 100), 90),
  });
