import { z } from 'zod';
import { duration, withDefault } from '../../platform/settings.js';

export const agentsSettings = () =>
  z.object({
    AGENT_TOKEN_TTL: withDefault(duration(60_000, 365 * 86_400_000, '90d'), '90d'),
  });
