import { z } from 'zod';
import type { LookoutFeature } from '../../../src/context.js';
import { infoMessage } from '../../../src/platform/slack/kit/messages.js';
import { withDefault } from '../../../src/platform/settings.js';

const pingSettings = z.object({ PING_REPLY: withDefault(z.string(), 'pong') });

/**
 * The smallest feature: `/traffic ping` answers PING_REPLY ("pong"), and `/traffic help ping`
 * says so. Plugged in by one more entry in the feature list (test/e2e/features.test.ts).
 */
export const ping: LookoutFeature<'ping', never, object, typeof pingSettings> = {
  name: 'ping',
  settings: pingSettings,
  plug: (_ctx, _needs, _repos, settings) => ({
    gives: undefined,
    subcommands: [
      {
        words: ['ping'],
        help: ['/traffic ping: answers pong (Lookout is listening).'],
        run: async ({ reply }) => reply(infoMessage(settings.PING_REPLY)),
      },
    ],
  }),
};
