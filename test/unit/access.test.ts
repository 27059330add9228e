import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../src/slack-rules/validate.js';
import { Access, type AccessRules } from '../../src/platform/slack/access.js';

type SecurityAccess = AccessRules['security'];
const rules = (security: SecurityAccess) => new Access({ admins: [], security });
const maySeeSecurity = (security: SecurityAccess, user: string, channel: string | undefined) => rules(security).maySeeSecurity(user, channel);
const mayPostSecurity = (security: SecurityAccess, channel: string | undefined) => rules(security).mayPostSecurity(channel);
const refusal = (security: SecurityAccess, user: string, channel: string | undefined) => rules(security).securityRefusal(user, channel);
import { mrkdwnOf } from '../support/sandbox.js';

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
      for (const [user, channel] of [['U_ALICE', 'C_MARKETING'], ['U_SEC1', 'C_SECURITY'], ['U_ALICE', undefined]] as const) {
        expect(validateMessage(refusal(access, user, channel))).toEqual({ ok: true });
      }
    }
  });
});

describe('isAdmin and mayManage', () => {
  const open = new Access({ admins: [], security: { users: [], channels: [] } });
  const listed = new Access({ admins: ['U_ADMIN'], security: { users: [], channels: [] } });

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
