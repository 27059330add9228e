import type { LookoutFeature } from '../../../src/context.js';
import { infoMessage } from '../../../src/platform/slack/kit/messages.js';

/**
 * The smallest feature: `/traffic ping` answers "pong", and `/traffic help ping` says so.
 * Plugged in by one more entry in the feature list (test/features/plug-in.test.ts).
 */
export const ping: LookoutFeature<'ping'> = {
  name: 'ping',
  plug: () => ({
    gives: undefined,
    subcommands: [
      {
        words: ['ping'],
        help: ['/traffic ping: answers pong (Lookout is listening).'],
        run: async ({ reply }) => reply(infoMessage('pong')),
      },
    ],
  }),
};
