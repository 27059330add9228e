import { z } from 'zod';
import { duration, intBetween, withDefault } from '../../platform/settings.js';

const DAY = 86_400_000;

/** Threat alerts' settings. */
export const alertSettings = () =>
  z.object({
    ALERT_BURST: withDefault(intBetween(1, 100), 5),
    ALERT_DELIVERY_DEADLINE: withDefault(duration(60_000, 7 * DAY, '6h'), '6h'),
  });
