import { z } from 'zod';
import { commaList, duration, withDefault } from '../../platform/settings.js';

export const workspaceSettings = () =>
  z.object({
    ANALYTICS_API_ALLOWED_URLS: withDefault(commaList, ''),
    UNINSTALL_RETENTION: withDefault(duration(0, 365 * 86_400_000, '30d'), '30d'),
  });
