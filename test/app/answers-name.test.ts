/**
 * Every answer names what it acted on (issue 27): the channel as a Slack channel link, the
 * watch's whole rule with its filters wherever a watch is shown, and help names every
 * sub-command. Signed commands through the offline Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mrkdwnOf, mrkdwnText, sandbox, type Sandbox } from '../support/sandbox.js';
import { until } from '../support/until.js';
import { ephemeralAnswer } from '../support/answers.js';

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox({ admins: ['U_ALICE'] });
});
afterAll(() => box?.stop());

async function command(channel: string, text: string, user = 'U_ALICE'): Promise<string> {
  return mrkdwnText(await ephemeralAnswer(box.slack, channel, user, text));
}

describe('answers name what they acted on', () => {
  it('a filtered watch is told apart from the unfiltered one on its confirmation, in the list and in the Home; its channel is a link', async () => {
    const filtered = await command('C_GENERAL', 'watch pages page~/checkout spike');
    expect(filtered).toMatch(
      /Watch #\d+ added: Pages: visits spike: .*, where page~\/checkout, evaluated every hour .* posting in <#C_GENERAL>\./,
    );
    const plain = await command('C_GENERAL', 'watch pages spike');
    expect(plain).not.toContain('page~/checkout');
    const list = await command('C_GENERAL', 'watch list');
    expect(list).toMatch(/\*#\d+\* Pages: visits spike: .*, where page~\/checkout · every hour · <#C_GENERAL>/);
    await box.slack.event('app_home_opened', 'U_ALICE', { tab: 'home', channel: 'D_U_ALICE' });
    const home = await until(async () => {
      const view = box.slack.workspace.home('U_ALICE') as { view: Parameters<typeof mrkdwnOf>[0] } | undefined;
      const words = view ? mrkdwnOf(view.view).join('\n') : '';
      return words.includes('page~/checkout') ? words : undefined;
    }, "Alice's Home");
    expect(home).toMatch(/Pages: visits spike: .*, where page~\/checkout in <#C_GENERAL>/);
  });

  it("a change watch's rule reads right and whole, the same on its confirmation, in the list and in the Home", async () => {
    const drop = 'visits drop by 40% or more against the same day last week';
    const rise = 'unique visitors rise by 50% or more against the hour before';
    const added = await command('C_MARKETING', 'watch visits drops 40% vs last week');
    expect(added).toMatch(new RegExp(`Watch #\\d+ added: ${drop}, evaluated every day `));
    expect(await command('C_MARKETING', 'watch unique rises 50% every hour')).toMatch(
      new RegExp(`Watch #\\d+ added: ${rise}, evaluated every hour `),
    );
    const list = await command('C_MARKETING', 'watch list');
    expect(list).toContain(`${drop} · every day`);
    expect(list).toContain(`${rise} · every hour`);
    expect(list).not.toMatch(/visits (drops|rises)/);
    await box.slack.event('app_home_opened', 'U_ALICE', { tab: 'home', channel: 'D_U_ALICE' });
    const home = await until(async () => {
      const view = box.slack.workspace.home('U_ALICE') as { view: Parameters<typeof mrkdwnOf>[0] } | undefined;
      const words = view ? mrkdwnOf(view.view).join('\n') : '';
      return words.includes(rise) ? words : undefined;
    }, "Alice's Home with both watches");
    expect(home).toContain(`${drop} in <#C_MARKETING>`);
  });

  it('/traffic alerts on names the channel it reports in, as a link', async () => {
    expect(await command('C_SECURITY', 'alerts on')).toMatch(/<#C_SECURITY>/);
    await command('C_SECURITY', 'alerts off');
  });

  it('help names every sub-command', async () => {
    const help = await command('C_GENERAL', 'help');
    for (const word of ['trend', 'watch', 'digest', 'alerts', '/visitor']) expect(help).toContain(word);
  });
});
