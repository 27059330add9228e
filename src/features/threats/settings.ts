import { z } from 'zod';
import { duration, withDefault } from '../../platform/settings.js';

const DAY = 86_400_000;

/** The threat scan's settings. */
export const threatSettings = () =>
  z.object({
    ALERT_SCAN_INTERVAL: withDefault(duration(1000, DAY, '60s'), '60s'),
    ALERT_RECHECK_AFTER: withDefault(duration(0, 30 * DAY, '6h'), '6h'),
  });
