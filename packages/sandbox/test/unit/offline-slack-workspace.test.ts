import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/slack/rate-limit.js';
import { SlackError } from '../../src/slack/types.js';
import { compareTs, Workspace, type WorkspaceChange } from '../../src/slack/workspace.js';
import { normalizeBlocks } from '../../src/slack/normalize.js';

function clock(start = 1_732_200_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('offline Slack workspace', () => {
  it('seeds the team, users, bot and channels', () => {
    const ws = new Workspace();
    expect(ws.team).toEqual({ id: 'T_LOOKOUT', name: 'Lookout Sandbox', domain: 'lookout-sandbox' });
    expect(ws.user('alice')).toMatchObject({ id: 'U_ALICE', tz: 'Europe/Berlin', is_bot: false });
    expect(ws.user('U_BOB')).toMatchObject({ name: 'bob', tz: 'America/New_York' });
    expect(ws.user('@carol')).toMatchObject({ id: 'U_CAROL', tz: 'UTC' });
    expect(ws.user('U_LOOKOUT_BOT')?.is_bot).toBe(true);
    expect(ws.channel('#general')?.id).toBe('C_GENERAL');
    expect(ws.channel('marketing')?.id).toBe('C_MARKETING');
    expect(ws.channel('C_SECURITY')?.name).toBe('security');
    expect(ws.channel('#old-news')).toMatchObject({ id: 'C_ARCHIVED', is_archived: true });
  });

  it('hands out unique, increasing Slack-format timestamps even when the clock stands still', () => {
    const c = clock();
    const ws = new Workspace({ now: c.now });
    const a = ws.nextTs();
    const b = ws.nextTs();
    expect(a).toBe('1732200000.000000');
    expect(b).toBe('1732200000.000001');
    c.advance(1500);
    const d = ws.nextTs();
    expect(d).toBe('1732200001.500000');
    expect([d, a, b].sort(compareTs)).toEqual([a, b, d]);
    expect(compareTs('10.000001', '9.999999')).toBeGreaterThan(0);
  });

  it('keeps thread bookkeeping, ephemerals and visibility', () => {
    const ws = new Workspace();
    const changes: WorkspaceChange['type'][] = [];
    ws.on('change', (c) => changes.push(c.type));
    const parent = ws.post({ channel: 'C_GENERAL', text: 'parent' });
    const reply = ws.post({ channel: 'C_GENERAL', text: 'reply', threadTs: parent.ts, user: 'U_BOB' });
    const nested = ws.post({ channel: 'C_GENERAL', text: 'reply to reply', threadTs: reply.ts });
    const eph = ws.post({ channel: 'C_GENERAL', text: 'just you', ephemeralTo: 'U_ALICE' });
    expect(nested.thread_ts).toBe(parent.ts);
    expect(parent).toMatchObject({
      thread_ts: parent.ts,
      reply_count: 2,
      reply_users: ['U_BOB', 'U_LOOKOUT_BOT'],
      latest_reply: nested.ts,
    });
    expect(ws.visibleMessages('C_GENERAL').map((m) => m.text)).toEqual(['parent']);
    expect(ws.visibleMessages('C_GENERAL', 'U_ALICE').map((m) => m.text)).toEqual(['parent', 'just you']);
    expect(ws.thread('C_GENERAL', parent.ts).map((m) => m.text)).toEqual(['parent', 'reply', 'reply to reply']);
    expect(parent.bot_id).toBe('B_LOOKOUT');
    expect(reply.bot_id).toBeUndefined();
    expect(eph.ephemeralTo).toBe('U_ALICE');
    ws.update('C_GENERAL', parent.ts, { text: 'edited' });
    expect(parent).toMatchObject({ text: 'edited', updates: 1 });
    ws.remove('C_GENERAL', reply.ts);
    expect(parent.reply_count).toBe(1);
    expect(changes).toEqual([
      'message',
      'message',
      'update',
      'message',
      'update',
      'message',
      'update',
      'delete',
      'update',
    ]);
  });

  it('fills in missing block_ids and action_ids as Slack does', () => {
    const [section, actions] = normalizeBlocks([
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'a' },
        accessory: { type: 'button', text: { type: 'plain_text', text: 'b' } },
      },
      {
        type: 'actions',
        block_id: 'mine',
        elements: [{ type: 'button', action_id: 'keep', text: { type: 'plain_text', text: 'c' } }],
      },
    ]);
    expect(section?.block_id).toMatch(/^[A-Za-z0-9]{5}$/);
    expect((section?.accessory as { action_id?: string }).action_id).toMatch(/^[a-z0-9]{5}$/);
    expect(actions?.block_id).toBe('mine');
    expect((actions?.elements as Array<{ action_id: string }>)[0]?.action_id).toBe('keep');
  });

  it('lets a trigger_id be used once within its lifetime', () => {
    const c = clock();
    const ws = new Workspace({ now: c.now });
    const code = (fn: () => unknown): string => {
      try {
        fn();
      } catch (error) {
        return (error as SlackError).code;
      }
      return 'ok';
    };
    const t1 = ws.issueTrigger('U_ALICE');
    expect(t1).toMatch(/^\d+\.\d+\.[0-9a-f]{32}$/);
    c.advance(3000);
    expect(ws.consumeTrigger(t1)).toEqual({ user: 'U_ALICE' });
    expect(code(() => ws.consumeTrigger(t1))).toBe('exchanged_trigger_id');
    const t2 = ws.issueTrigger('U_BOB');
    c.advance(3001);
    expect(code(() => ws.consumeTrigger(t2))).toBe('expired_trigger_id');
    expect(code(() => ws.consumeTrigger('1.2.3'))).toBe('invalid_trigger_id');
  });

  it('stacks at most 3 modals and closes them from the top', () => {
    const ws = new Workspace();
    const view = (n: number) => ({ type: 'modal', title: { type: 'plain_text', text: `v${n}` }, blocks: [] });
    const root = ws.openView('U_ALICE', view(1));
    const second = ws.pushView('U_ALICE', view(2));
    ws.pushView('U_ALICE', view(3));
    expect(() => ws.pushView('U_ALICE', view(4))).toThrow(SlackError);
    expect(ws.openViews('U_ALICE').map((v) => v.title.text)).toEqual(['v1', 'v2', 'v3']);
    expect(ws.closeView(second.id).map((v) => v.title.text)).toEqual(['v3', 'v2']);
    expect(ws.openViews('U_ALICE')).toEqual([root]);
    const hash = root.hash;
    ws.updateView(root.id, view(9));
    expect(root.title.text).toBe('v9');
    expect(root.id).toBe(ws.openViews('U_ALICE')[0]?.id);
    expect(root.hash).not.toBe(hash);
    ws.closeView(root.id, { all: true });
    expect(ws.openViews('U_ALICE')).toEqual([]);
  });
});

describe('rate limiter', () => {
  it('allows a burst, then refills at the configured rate, and can be turned off', () => {
    const c = clock();
    const limiter = new RateLimiter({ burst: 2, perSecond: 0.5 }, c.now);
    expect(limiter.take('C1')).toEqual({ ok: true });
    expect(limiter.take('C1')).toEqual({ ok: true });
    expect(limiter.take('C1')).toEqual({ ok: false, retryAfter: 2 });
    expect(limiter.take('C2')).toEqual({ ok: true });
    c.advance(1000);
    expect(limiter.take('C1')).toEqual({ ok: false, retryAfter: 1 });
    c.advance(1000);
    expect(limiter.take('C1')).toEqual({ ok: true });
    limiter.configure(false);
    for (let i = 0; i < 10; i++) expect(limiter.take('C1')).toEqual({ ok: true });
    expect(() => limiter.configure({ burst: 0, perSecond: 1 })).toThrow();
  });
});
