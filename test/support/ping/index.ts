import type { LookoutFeature } from '../../../src/context.js';
import type { Queryable } from '../../../src/platform/store/db.js';
import { infoMessage } from '../../../src/platform/slack/kit/messages.js';

/** The test feature's one repository: its table, brought by its own migration. */
export class PingRepo {
  constructor(private readonly db: Queryable) {}

  async add(team: string, user: string): Promise<void> {
    await this.db.query('INSERT INTO pings (team_id, user_id) VALUES ($1, $2)', [team, user]);
  }

  async count(team: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pings WHERE team_id = $1', [
      team,
    ]);
    return rows[0]?.n ?? 0;
  }
}

declare module '../../../src/platform/feature.js' {
  interface Provided {
    ping: { jobRuns(): number };
  }
}

/**
 * The smallest feature with one of everything a feature owns: `/traffic ping` (its words,
 * help and runner), a table (its migration and repository), a metric, a job. Plugged in by
 * one more entry in the feature list (test/features/plug-in.test.ts); nothing else changes.
 */
export const ping: LookoutFeature<'ping', never, { pings: PingRepo }> = {
  name: 'ping',
  traffic: { words: ['ping'], usage: '', help: ['/traffic ping: answers pong (Lookout is listening).'] },
  migrations: new URL('./migrations/', import.meta.url),
  repos: (db) => ({ pings: new PingRepo(db) }),
  plug({ platform }, _needs, { pings }) {
    const counted = platform.metrics.counter({ name: 'lookout_pings_total', help: 'Pings answered' });
    let runs = 0;
    return {
      gives: { jobRuns: () => runs },
      traffic: async ({ command, reply }) => {
        await pings.add(command.team_id, command.user_id);
        counted.inc();
        await reply(infoMessage(`pong (${await pings.count(command.team_id)} so far here)`));
      },
      jobs: [{ start: () => void (runs += 1), stop: async () => {} }],
    };
  },
};
