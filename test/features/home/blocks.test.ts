import { describe, expect, it } from 'vitest';
import { homeView, HOME_SHOWN, type HomeView } from '../../../src/features/home/blocks.js';
import { validateHomeView } from '../../../src/slack-rules/validate.js';

const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i + 1));

const full: HomeView = {
  digests: many(40, (id) => ({
    id,
    channelId: 'C_GENERAL',
    reports: ['sources'],
    schedule: 'every day at 07:00',
    nextRun: 'Nov 24, 07:00',
    paused: id % 2 === 0,
    attention: 'Slack refuses this channel (not_in_channel)',
  })),
  watches: many(40, (id) => ({
    id,
    title: 'visits above 1,000',
    channelId: 'C_GENERAL',
    state: 'ok: 12 visits',
    alerts: '12 alerts in the last 30 days',
    paused: false,
    muted: id % 3 === 0,
  })),
  alerts: {
    subscriptions: many(40, (i) => ({ channelId: `C_S${i}`, text: 'medium severity or more' })),
    recent: many(40, (i) => ({
      channelId: 'C_SECURITY',
      visitorId: `v_${i}`,
      text: `Threat · high: visitor v_${i}`,
      acknowledgedBy: 'U_CAROL',
      muted: i % 2 === 0,
    })),
    manage: true,
  },
  deliveries: many(40, (id) => ({
    id,
    channelId: 'C_GENERAL',
    label: 'digest',
    state: 'failed (not_in_channel)',
    failed: true,
  })),
  settings: {
    operator: true,
    admins: ['U_CAROL'],
    securityUsers: [],
    securityChannels: ['C_SECURITY'],
    scrapingScoreThreshold: 0.8,
    digestsPerChannel: 10,
    digestsPerUser: 20,
    digestMinIntervalMs: 3_600_000,
    watchesPerChannel: 10,
    watchesPerUser: 20,
    userRequests: 30,
    userWindowMs: 60_000,
  },
  demo: true,
  notice: { ok: false, text: 'Digest #3 belongs to someone else; only its owner or an admin can change it.' },
};

describe('the Home tab', () => {
  it(`stays within Slack's limits with everything at its fullest: ${HOME_SHOWN} of each, the rest counted`, () => {
    const view = homeView(full);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(validateHomeView(view)).toEqual({ ok: true });
    const text = JSON.stringify(view);
    expect(text).toContain('…and 30 more: `/traffic digest list all`');
    expect(text).toContain('…and 30 more: `/traffic watch list all`');
    expect(text).toContain('Settings (admins, read-only)');
  });

  it('gives no controls over threat alerts to those who may not change them, and no settings or latest alerts unless given', () => {
    const { settings: _s, ...rest } = full;
    const view = JSON.stringify(
      homeView({ ...rest, alerts: { subscriptions: full.alerts.subscriptions.slice(0, 2), manage: false } }),
    );
    expect(view).not.toMatch(/home\.alerts\.(on|off)|home\.alert\.(mute|unmute)|Latest alerts|Settings/);
    expect(view).toContain('<#C_S1>: medium severity or more\\n<#C_S2>: medium severity or more');
  });

  it("names the settings by their environment variables for the operator, and in a workspace's words for a distributed app's workspace", () => {
    const settingsOf = (operator: boolean, admins: string[]) =>
      homeView({ ...full, settings: { ...full.settings!, operator, admins } }).blocks.filter(
        (b) => b.block_id === 'settings' || JSON.stringify(b).includes('Settings') || b.type === 'context',
      );
    const operator = JSON.stringify(settingsOf(true, []));
    expect(operator).toContain(
      '*Admins* (`ADMIN_USERS`): not set: everyone may manage digests, watches and threat alerts',
    );
    expect(operator).toContain("Set in Lookout's environment");
    const section = (blocks: ReturnType<typeof settingsOf>) =>
      (blocks.find((b) => b.block_id === 'settings') as { text: { text: string } }).text.text;
    expect(section(settingsOf(false, [])).split('\n')).toEqual([
      '*Admins*: everyone may manage digests, watches and threat alerts',
      '*Security details*: everyone · in <#C_SECURITY>',
      '*Scraping* counts as a reason from a score of 0.8',
      '*Digests*: at most 10 per channel and 20 per person; one runs at most every 1 hour',
      '*Watches*: at most 10 per channel and 20 per person',
      '*Requests*: 30 per person every 1 minute',
    ]);
    const workspace = JSON.stringify(settingsOf(false, []));
    expect(workspace).not.toMatch(/[A-Z]{2,}_[A-Z_]+|environment|not set/);
    expect(workspace).toContain('Settings (read-only)');
    expect(workspace).toContain('set by whoever runs it');
  });

  it('escapes what comes from outside', () => {
    const view = JSON.stringify(
      homeView({ ...full, digests: [{ ...full.digests[0]!, reports: ['<!channel>'], attention: '<@U_X> *bold*' }] }),
    );
    expect(view).not.toContain('<!channel>');
    expect(view).not.toContain('<@U_X>');
  });
});
