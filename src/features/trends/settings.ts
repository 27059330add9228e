import { z } from 'zod';
import { intBetween, withDefault } from '../../platform/settings.js';

export const trendSettings = () =>
  z.object({
    TREND_MAX_FETCH: withDefault(intBetween(1, 10_000), 200),
  });
