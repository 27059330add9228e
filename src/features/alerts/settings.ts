import { z } from 'zod';
import { duration, intBetween, withDefault } from '../../platform/settings.js';

const DAY = 86_400_000;

/** The threat scan's and its alerts' settings. */
export const alertSettings = z.object({
  ALERT_SCAN_INTERVAL: withDefault(duration(1000, DAY, '60s'), '60s'),
  ALERT_RECHECK_AFTER: withDefault(duration(0, 30 * DAY, '6h'), '6h'),
  ALERT_BURST: withDefault(intBetween(1, 100), 5),
  ALERT_DELIVERY_DEADLINE: withDefault(duration(60_000, 7 * DAY, '6h'), '6h'),
});
