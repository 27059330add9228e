import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import { Access, type AccessRules } from '../../../src/platform/slack/access.js';

type SecurityAccess = AccessRules['security'];
const rules = (security: SecurityAccess) => new Access({ admins: [], security }, async () => true);
const maySeeSecurity = (security: SecurityAccess, user: string, channel: string | undefined) =>
  rules(security).maySeeSecurity(user, channel);
const mayPostSecurity = (security: SecurityAccess, channel: string | undefined) =>
  rules(security).mayPostSecurity(channel);
const refusal = (security: SecurityAccess, user: string, channel: string | undefined) =>
  rules(security).securityRefusal(user, channel);
import { mrkdwnOf } from '../../support/sandbox.js';

const OPEN: SecurityAccess = { users: [], channels: [] };
const USERS_ONLY: SecurityAccess = { users: ['U_SEC1', 'U_SEC2'], channels: [] };
const CHANNELS_ONLY: SecurityAccess = { users: [], channels: ['C_SECURITY', 'C_SOC'] };
const BOTH: SecurityAccess = { users: ['U_SEC1', 'U_SEC2'], channels: ['C_SECURITY', 'C_SOC'] };

/** Everything a refusal says: the fallback text and every mrkdwn text. */
const said = (access: SecurityAccess, user: string, channel: string | undefined) => {
  const message = refusal(access, user, channel);
  return { message, all: [message.text, ...mrkdwnOf(message)].join('\n') };
};

describe('maySeeSecurity', () => {
  it.each([
    // access, user, channel, may see
    ['open', OPEN, 'U_ALICE', 'C_MARKETING', true],
    ['open', OPEN, 'U_ALICE', undefined, true],
    ['users only', USERS_ONLY, 'U_SEC1', 'C_MARKETING', true],
    ['users only', USERS_ONLY, 'U_SEC2', undefined, true],
    ['users only', USERS_ONLY, 'U_ALICE', 'C_SECURITY', false],
    ['users only', USERS_ONLY, 'u_sec1', 'C_MARKETING', false],
    ['channels only', CHANNELS_ONLY, 'U_ALICE', 'C_SECURITY', true],
    ['channels only', CHANNELS_ONLY, 'U_ALICE', 'C_SOC', true],
    ['channels only', CHANNELS_ONLY, 'U_SEC1', 'C_MARKETING', false],
    ['channels only', CHANNELS_ONLY, 'U_ALICE', undefined, false],
    ['both', BOTH, 'U_SEC1', 'C_SECURITY', true],
    ['both', BOTH, 'U_SEC2', 'C_SOC', true],
    ['both', BOTH, 'U_SEC1', 'C_MARKETING', false],
    ['both', BOTH, 'U_ALICE', 'C_SECURITY', false],
    ['both', BOTH, 'U_ALICE', 'C_MARKETING', false],
    ['both', BOTH, 'U_SEC1', undefined, false],
  ] as const)('%s: %s in %s → %s', (_name, access, user, channel, expected) => {
    expect(maySeeSecurity(access, user, channel)).toBe(expected);
  });
});

describe('mayPostSecurity', () => {
  it.each([
    ['open', OPEN, 'C_MARKETING', true],
    ['open', OPEN, undefined, true],
    // Restricting users does not restrict where a card may be posted.
    ['users only', USERS_ONLY, 'C_MARKETING', true],
    ['users only', USERS_ONLY, undefined, true],
    ['channels only', CHANNELS_ONLY, 'C_SECURITY', true],
    ['channels only', CHANNELS_ONLY, 'C_MARKETING', false],
    ['channels only', CHANNELS_ONLY, undefined, false],
    ['both', BOTH, 'C_SOC', true],
    ['both', BOTH, 'C_GENERAL', false],
    ['both', BOTH, undefined, false],
  ] as const)('%s: in %s → %s', (_name, access, channel, expected) => {
    expect(mayPostSecurity(access, channel)).toBe(expected);
  });
});

describe('refusal', () => {
  it('users only: names who to ask, not where', () => {
    const { message, all } = said(USERS_ONLY, 'U_ALICE', 'C_MARKETING');
    expect(message.text).toMatch(/^Security details are restricted\. /);
    expect(all).toContain('<@U_SEC1>');
    expect(all).toContain('<@U_SEC2>');
    expect(all).not.toContain('<#');
    expect(mrkdwnOf(message)).toContain('Only <@U_SEC1>, <@U_SEC2> can look up visitors; ask one of them.');
  });

  it('channels only: names where, not who', () => {
    const { message, all } = said(CHANNELS_ONLY, 'U_ALICE', 'C_MARKETING');
    expect(all).toContain('<#C_SECURITY>');
    expect(all).toContain('<#C_SOC>');
    expect(all).not.toContain('<@');
    expect(mrkdwnOf(message)).toContain('Visitor lookups work in <#C_SECURITY>, <#C_SOC>.');
  });

  it('channels only, asked outside any channel: names where', () => {
    expect(said(CHANNELS_ONLY, 'U_ALICE', undefined).all).toContain('<#C_SECURITY>');
  });

  it('both, wrong person in the wrong channel: names who and where', () => {
    const { message, all } = said(BOTH, 'U_ALICE', 'C_MARKETING');
    expect(all).toContain('<@U_SEC1>');
    expect(all).toContain('<#C_SECURITY>');
    expect(message.text).toBe(
      'Security details are restricted. Only <@U_SEC1>, <@U_SEC2> can look up visitors; ask one of them. Visitor lookups work in <#C_SECURITY>, <#C_SOC>.',
    );
  });

  it('both, right person in the wrong channel: only where', () => {
    const { all } = said(BOTH, 'U_SEC1', 'C_MARKETING');
    expect(all).toContain('<#C_SECURITY>');
    expect(all).not.toContain('<@');
  });

  it('both, wrong person in the right channel: only who', () => {
    const { all } = said(BOTH, 'U_ALICE', 'C_SECURITY');
    expect(all).toContain('<@U_SEC1>');
    expect(all).not.toContain('<#');
  });

  it('names at most ten people', () => {
    const many: SecurityAccess = { users: Array.from({ length: 15 }, (_, i) => `U_SEC${i}`), channels: [] };
    const { all } = said(many, 'U_ALICE', 'C_MARKETING');
    expect(all).toContain('<@U_SEC9>');
    expect(all).not.toContain('<@U_SEC10>');
  });

  it('never names the person asking or the channel asked in as the ones to go to', () => {
    const { all } = said(BOTH, 'U_ALICE', 'C_MARKETING');
    expect(all).not.toContain('U_ALICE');
    expect(all).not.toContain('C_MARKETING');
  });

  it('is a valid message whoever asks, even when nothing is restricted', () => {
    for (const access of [OPEN, USERS_ONLY, CHANNELS_ONLY, BOTH]) {
      for (const [user, channel] of [
        ['U_ALICE', 'C_MARKETING'],
        ['U_SEC1', 'C_SECURITY'],
        ['U_ALICE', undefined],
      ] as const) {
        expect(validateMessage(refusal(access, user, channel))).toEqual({ ok: true });
      }
    }
  });
});

describe('isAdmin and mayManage', () => {
  const open = new Access({ admins: [], security: { users: [], channels: [] } }, async () => true);
  const listed = new Access({ admins: ['U_ADMIN'], security: { users: [], channels: [] } }, async () => true);

  it('with no ADMIN_USERS everyone is an admin and may manage anything', () => {
    expect(open.isAdmin('U_ALICE')).toBe(true);
    expect(open.mayManage('U_ALICE', 'U_BOB')).toBe(true);
  });

  it('with ADMIN_USERS only they are admins; others manage only what they own', () => {
    expect(listed.isAdmin('U_ADMIN')).toBe(true);
    expect(listed.isAdmin('U_ALICE')).toBe(false);
    expect(listed.isAdmin('u_admin')).toBe(false);
    expect(listed.mayManage('U_ADMIN', 'U_BOB')).toBe(true);
    expect(listed.mayManage('U_ALICE', 'U_ALICE')).toBe(true);
    expect(listed.mayManage('U_ALICE', 'U_BOB')).toBe(false);
  });
});

describe('the rights table: who may do what with a watch, and from where (docs/security.md, "Who may do what")', () => {
  // #growth: Alice (the owner) and Dana are in it; Bob is not; Carol is a named admin and not in it either.
  const members: Record<string, readonly string[]> = {
    C_GROWTH: ['U_ALICE', 'U_DANA'],
    C_GENERAL: ['U_ALICE', 'U_BOB', 'U_DANA', 'U_CAROL'],
  };
  const membership = async (user: string, channel: string) =>
    channel in members ? members[channel]!.includes(user) : undefined;
  const access = new Access({ admins: ['U_CAROL'], security: { users: [], channels: [] } }, membership);
  const noAdmins = new Access({ admins: [], security: { users: [], channels: [] } }, membership);
  const watch = { name: 'Watch #1', ownerId: 'U_ALICE', channelId: 'C_GROWTH' };
  const allowed = (r: unknown) => r === undefined;

  it.each([
    ['U_ALICE', 'a member', true],
    ['U_DANA', 'a member', true],
    ['U_BOB', 'not a member', false],
    ['U_CAROL', 'a named admin, not a member', true],
  ] as const)('post in #growth: %s (%s) → %s', async (user, _who, ok) => {
    expect(allowed(await access.mayPostIn(user, 'C_GROWTH'))).toBe(ok);
  });

  it('post in a channel Slack will not describe (a private one without Lookout): refused, saying to invite Lookout', async () => {
    expect((await access.mayPostIn('U_ALICE', 'G_SECRET'))?.text).toMatch(
      /can't tell who is in that channel.*Invite Lookout/,
    );
  });

  it('with no ADMINS set, nobody is exempt: a non-member may not post there', async () => {
    expect(allowed(await noAdmins.mayPostIn('U_BOB', 'C_GROWTH'))).toBe(false);
  });

  const cells = [
    // who, from, change, respond (mute/acknowledge)
    ['U_ALICE', 'the owner', 'its channel', true, true],
    ['U_ALICE', 'the owner', 'the Home', true, true],
    ['U_ALICE', 'the owner', 'another channel', false, false],
    ['U_DANA', 'a member', 'its channel', false, true],
    ['U_DANA', 'a member', 'the Home', false, true],
    ['U_DANA', 'a member', 'another channel', false, false],
    ['U_BOB', 'not a member', 'its channel', false, false],
    ['U_BOB', 'not a member', 'the Home', false, false],
    ['U_CAROL', 'a named admin', 'its channel', true, true],
    ['U_CAROL', 'a named admin', 'the Home', true, true],
    ['U_CAROL', 'a named admin', 'another channel', false, false],
  ] as const;
  const fromOf = (where: string) =>
    where === 'the Home' ? ('home' as const) : { channelId: where === 'its channel' ? 'C_GROWTH' : 'C_GENERAL' };

  it.each(cells)('%s (%s) from %s: change %s, mute or acknowledge %s', async (user, _who, where, change, respond) => {
    expect(allowed(await access.mayChange(user, watch, fromOf(where)))).toBe(change);
    expect(allowed(await access.mayRespond(user, watch, fromOf(where)))).toBe(respond);
  });

  it("from another channel the answer names the watch's channel as a link, and says where to go instead", async () => {
    const refusal = await access.mayRespond('U_ALICE', watch, { channelId: 'C_GENERAL' });
    expect(refusal?.text).toBe(
      'Watch #1 posts in <#C_GROWTH>. Do that there, or from your App Home (Lookout, Home tab).',
    );
  });

  it('with no ADMINS set, a member of its channel may also change it; a non-member may not', async () => {
    expect(allowed(await noAdmins.mayChange('U_DANA', watch, 'home'))).toBe(true);
    expect(allowed(await noAdmins.mayChange('U_BOB', watch, 'home'))).toBe(false);
  });

  it('the Home shows only the channels a person is in', async () => {
    expect(await access.channelsOf('U_BOB', ['C_GROWTH', 'C_GENERAL', 'G_SECRET'])).toEqual(['C_GENERAL']);
    expect(await access.channelsOf('U_DANA', ['C_GROWTH', 'C_GENERAL'])).toEqual(['C_GROWTH', 'C_GENERAL']);
  });
});
