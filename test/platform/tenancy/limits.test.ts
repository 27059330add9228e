import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, distributedSandbox, install, run, type DistributedBox } from '../../support/distributed.js';

/**
 * Two workspaces on one analytics account, with a person of the same user id in both and a
 * channel of the same id in both: what one spends of a limit is never the other's.
 */
let box: DistributedBox;
const one = () => box.slack.team('T_LOOKOUT');
const other = () => box.slack.team('T_OTHER');
const SAME_USER = 'U_SAME';
const SAME_CHANNEL = 'C_SAME';

beforeAll(async () => {
  box = await distributedSandbox({ limits: { userRequests: 3, apiBudget: 60, digestsPerChannel: 2 } });
  for (const team of ['T_LOOKOUT', 'T_OTHER']) {
    const { workspace } = box.slack.team(team);
    workspace.addUser({ id: SAME_USER, name: 'sam', tz: 'UTC' });
    workspace.addChannel({ name: 'same', id: SAME_CHANNEL, botIsMember: true });
  }
  await install(box, 'T_LOOKOUT', 'U_ALICE');
  await install(box, 'T_OTHER', 'U_DANA');
  // Both workspaces connect the same analytics account: its answers are shared, its limits are not.
  const account = box.lookout.accounts.find((a) => a.teamId === 'T_LOOKOUT')!;
  expect((await connect(one(), 'U_ALICE', account.baseUrl, account.apiKey)).outcome).toBe('connected');
  expect((await connect(other(), 'U_DANA', account.baseUrl, account.apiKey)).outcome).toBe('connected');
});
afterAll(() => box?.stop());

describe('limits are per workspace', () => {
  it('a person who used their quota in one workspace is refused there, naming the limit; the same user id in the other is answered', async () => {
    let refusal = '';
    for (let i = 0; i < 4 && !refusal; i++) {
      const said = await run(one(), SAME_CHANNEL, SAME_USER, 'sources last7d');
      if (said.includes('You have used')) refusal = said;
    }
    expect(refusal).toContain('You have used the 3 analytics API requests one person may make in this workspace');
    expect(refusal).toContain('Try again in');
    const there = await run(other(), SAME_CHANNEL, SAME_USER, 'sources last7d');
    expect(there).not.toContain('You have used');
    expect(there).toContain('Sources');
  });

  it('a channel at its digest limit in one workspace leaves the channel of the same id in the other free', async () => {
    const add = 'digest add #same daily 9am sources';
    for (let i = 0; i < 2; i++) expect(await run(one(), SAME_CHANNEL, 'U_ALICE', add)).toContain('added');
    expect(await run(one(), SAME_CHANNEL, 'U_ALICE', add)).toContain(
      'That channel already has 2 digests, the most a channel may have.',
    );
    expect(await run(other(), SAME_CHANNEL, 'U_DANA', add)).toContain('added');
  });

  it('background work waits when its workspace’s API budget is spent, and not when only the other workspace’s is', async () => {
    const tenants = box.lookout.tenants;
    const [a, b] = [await tenants.of('T_LOOKOUT'), await tenants.of('T_OTHER')];
    expect(a.account).toBe(b.account);
    // People spend their workspace's minute (60 requests) at once: background work in it waits for the next token.
    for (let i = 0; i < 60; i++) await a.budget.acquire('person');
    // Two days of the last week, one each, so neither joins the other's request on the wire.
    const request = (daysAgo: number) => {
      const date = new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      return { startDate: date, endDate: date, limit: 1 };
    };
    const [inA, inB] = await Promise.all([
      a.api.report('countries', request(2)),
      b.api.report('countries', request(3)),
    ]);
    expect([inA.length, inB.length]).toEqual([1, 1]);
    expect([a.budget.waited, b.budget.waited]).toEqual([1, 0]);
  });
});
