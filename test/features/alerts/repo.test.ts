import { describe, expect, it } from 'vitest';
import { AlertRepo, type AlertClaim } from '../../../src/features/alerts/repos/alerts.js';
import { AlertGroupRepo } from '../../../src/features/alerts/repos/groups.js';
import { describeEachDb } from '../../support/db.js';
import { AlertSubscriptionRepo } from '../../../src/features/alerts/repos/subscriptions.js';
import { until, sleep } from '../../support/until.js';

const T0 = new Date('2024-11-04T08:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const claim = (over: Partial<AlertClaim> = {}): AlertClaim => ({
  teamId: 'T1',
  channelId: 'C1',
  visitorId: 'V1',
  severity: 'medium',
  verdict: 'Likely bot',
  reasons: ['Headless browser', 'Datacenter IP "AS16509" \\ Amazon'],
  visit: {
    id: 'visit-1',
    page: '/pricing?a=1&b=<2>',
    country: 'Côte d’Ivoire',
    nested: { n: 1, ok: true, none: null },
  },
  firstSeen: at(-5),
  lastSeen: at(0),
  ...over,
});

describeEachDb('store alerts', (t) => {
  describe('AlertSubscriptionRepo', () => {
    it('two refusals of a channel at once: exactly one finds it unmarked (so its owner is told once)', async () => {
      await t.store.subscriptions.upsert({
        channelId: 'C_RACE',
        teamId: 'T1',
        minSeverity: 'medium',
        checks: ['bot'],
        createdBy: 'U1',
      });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // The first holds its transaction open while the second's statement starts (on PostgreSQL it waits for the row lock).
      const first = t.store.db.transaction(async (tx) => {
        const before = await new AlertSubscriptionRepo(tx).markAttention('T1', 'C_RACE', 'not_in_channel');
        await held;
        return before;
      });
      await new Promise((r) => setTimeout(r, 50));
      const second = t.store.db.transaction((tx) =>
        new AlertSubscriptionRepo(tx).markAttention('T1', 'C_RACE', 'not_in_channel'),
      );
      await new Promise((r) => setTimeout(r, 100));
      release();
      const befores = await Promise.all([first, second]);
      expect(befores.map((b) => b?.attention ?? 'unmarked').sort()).toEqual(['not_in_channel', 'unmarked']);
      expect((await t.store.subscriptions.get('T1', 'C_RACE'))?.attention).toBe('not_in_channel');
    });

    it('subscribes a channel and reads it back, checks and all', async () => {
      const created = await t.store.subscriptions.upsert({
        channelId: 'C1',
        teamId: 'T1',
        minSeverity: 'medium',
        checks: ['bot', 'vpn', 'extensions'],
        createdBy: 'U1',
      });
      expect(created).toEqual({
        channelId: 'C1',
        teamId: 'T1',
        minSeverity: 'medium',
        checks: ['bot', 'vpn', 'extensions'],
        createdBy: 'U1',
        grouping: 'grouped',
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      });
      expect(await t.store.subscriptions.get('T1', 'C1')).toEqual(created);
      expect(await t.store.subscriptions.get('T1', 'C2')).toBeUndefined();
    });

    it('changes a subscription in place, keeping who created it and when', async () => {
      const first = await t.store.subscriptions.upsert({
        channelId: 'C1',
        teamId: 'T1',
        minSeverity: 'high',
        checks: ['bot'],
        createdBy: 'U1',
      });
      await sleep(5);
      const changed = await t.store.subscriptions.upsert({
        channelId: 'C1',
        teamId: 'T1',
        minSeverity: 'low',
        checks: ['scraping', 'bot'],
        createdBy: 'U2',
      });
      expect(changed).toEqual({
        ...first,
        minSeverity: 'low',
        checks: ['scraping', 'bot'],
        updatedAt: expect.any(Date),
      });
      expect(changed.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
      expect(await t.store.subscriptions.list(undefined)).toEqual([changed]);
    });

    it('keeps how alerts go out: grouped unless told one each, and as told on each change', async () => {
      const input = { channelId: 'C1', teamId: 'T1', minSeverity: 'high', checks: ['bot'], createdBy: 'U1' } as const;
      expect((await t.store.subscriptions.upsert({ ...input, checks: ['bot'], grouping: 'each' })).grouping).toBe(
        'each',
      );
      expect((await t.store.subscriptions.get('T1', 'C1'))?.grouping).toBe('each');
      expect((await t.store.subscriptions.upsert({ ...input, checks: ['bot'] })).grouping).toBe('grouped');
      await expect(
        t.store.subscriptions.upsert({ ...input, checks: ['bot'], grouping: 'some' as never }),
      ).rejects.toThrow();
    });

    it('lists subscriptions oldest first and removes one', async () => {
      for (const channelId of ['C2', 'C1', 'C3']) {
        await t.store.subscriptions.upsert({
          channelId,
          teamId: 'T1',
          minSeverity: 'high',
          checks: [],
          createdBy: 'U1',
        });
        await sleep(2);
      }
      expect((await t.store.subscriptions.list(undefined)).map((s) => s.channelId)).toEqual(['C2', 'C1', 'C3']);
      expect((await t.store.subscriptions.get('T1', 'C3'))?.checks).toEqual([]);
      expect(await t.store.subscriptions.remove('T1', 'C1')).toBe(true);
      expect(await t.store.subscriptions.remove('T1', 'C1')).toBe(false);
      expect((await t.store.subscriptions.list(undefined)).map((s) => s.channelId)).toEqual(['C2', 'C3']);
    });

    it('refuses a severity that does not exist', async () => {
      await expect(
        t.store.subscriptions.upsert({
          channelId: 'C1',
          teamId: 'T1',
          minSeverity: 'critical' as 'high',
          checks: ['bot'],
          createdBy: 'U1',
        }),
      ).rejects.toMatchObject({ code: '23514' });
    });
  });

  describe('workspaces', () => {
    it('one channel id in two workspaces (Slack Connect): each has its own subscription, mute and alert, and reads only its own', async () => {
      const input = { channelId: 'C_SHARED', minSeverity: 'medium', checks: ['bot'], createdBy: 'U1' } as const;
      await t.store.subscriptions.upsert({ ...input, teamId: 'T1', checks: ['bot'] });
      await t.store.subscriptions.upsert({ ...input, teamId: 'T2', checks: ['vpn'] });
      expect((await t.store.subscriptions.get('T1', 'C_SHARED'))?.checks).toEqual(['bot']);
      expect((await t.store.subscriptions.get('T2', 'C_SHARED'))?.checks).toEqual(['vpn']);
      expect((await t.store.subscriptions.list(['T2'])).map((s) => s.teamId)).toEqual(['T2']);
      expect(await t.store.subscriptions.list([])).toEqual([]);

      expect(await t.store.alerts.claim(claim({ channelId: 'C_SHARED' }))).toBe(true);
      expect(await t.store.alerts.claim(claim({ teamId: 'T2', channelId: 'C_SHARED' }))).toBe(true);
      expect(await t.store.alerts.acknowledge('T2', 'C_SHARED', 'V1', 'U2', at(1))).toMatchObject({
        acknowledgedBy: 'U2',
      });
      expect((await t.store.alerts.get('T1', 'C_SHARED', 'V1'))?.acknowledgedBy).toBeUndefined();
      expect(await t.store.alerts.get('T3', 'C_SHARED', 'V1')).toBeUndefined();

      await t.store.mutes.mute('T1', 'C_SHARED', 'V1', null, 'U1');
      expect(await t.store.mutes.isMuted('T2', 'C_SHARED', 'V1', at(0))).toBeUndefined();
      expect(await t.store.mutes.unmute('T2', 'C_SHARED', 'V1')).toBe(false);
      expect(await t.store.mutes.isMuted('T1', 'C_SHARED', 'V1', at(0))).toBeDefined();

      expect(await t.store.subscriptions.remove('T2', 'C_SHARED')).toBe(true);
      expect(await t.store.subscriptions.get('T1', 'C_SHARED')).toBeDefined();
    });
  });

  describe('AlertMuteRepo', () => {
    it('mutes until a moment or for good; expired mutes are not active', async () => {
      const now = at(0);
      const past = await t.store.mutes.mute('T1', 'C1', 'V-past', at(-1), 'U1');
      const future = await t.store.mutes.mute('T1', 'C1', 'V-future', at(60), 'U1');
      await sleep(2);
      const forever = await t.store.mutes.mute('T1', 'C1', 'V-forever', null, 'U2');
      await t.store.mutes.mute('T1', 'C2', 'V-other', null, 'U1');
      expect(past).toEqual({
        teamId: 'T1',
        channelId: 'C1',
        visitorId: 'V-past',
        until: at(-1),
        mutedBy: 'U1',
        createdAt: expect.any(Date),
      });
      expect(forever.until).toBeUndefined();

      const active = await t.store.mutes.activeFor(
        'T1',
        'C1',
        ['V-past', 'V-future', 'V-forever', 'V-none', 'V-other'],
        now,
      );
      expect([...active.keys()].sort()).toEqual(['V-forever', 'V-future']);
      expect(active.get('V-future')).toEqual(future);
      expect(active.get('V-forever')).toEqual(forever);
      expect(await t.store.mutes.activeFor('T1', 'C1', [], now)).toEqual(new Map());

      // Exactly at `until` the mute has ended.
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V-future', at(60))).toBeUndefined();
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V-future', at(59))).toEqual(future);
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V-past', now)).toBeUndefined();
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V-forever', at(1e7))).toEqual(forever);
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V-other', now)).toBeUndefined();

      expect((await t.store.mutes.listActive('T1', 'C1', now)).map((m) => m.visitorId)).toEqual([
        'V-future',
        'V-forever',
      ]);
      expect((await t.store.mutes.listActive('T1', 'C2', now)).map((m) => m.visitorId)).toEqual(['V-other']);
      expect(await t.store.mutes.listActive('T1', 'C9', now)).toEqual([]);
    });

    it('muting again replaces the mute', async () => {
      await t.store.mutes.mute('T1', 'C1', 'V1', at(-1), 'U1');
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V1', at(0))).toBeUndefined();
      const again = await t.store.mutes.mute('T1', 'C1', 'V1', null, 'U2');
      expect(again).toMatchObject({ until: undefined, mutedBy: 'U2' });
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V1', at(0))).toEqual(again);
      const shorter = await t.store.mutes.mute('T1', 'C1', 'V1', at(10), 'U3');
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V1', at(11))).toBeUndefined();
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V1', at(9))).toEqual(shorter);
    });

    it('unmutes', async () => {
      await t.store.mutes.mute('T1', 'C1', 'V1', null, 'U1');
      await t.store.mutes.mute('T1', 'C2', 'V1', null, 'U1');
      expect(await t.store.mutes.unmute('T1', 'C1', 'V1')).toBe(true);
      expect(await t.store.mutes.unmute('T1', 'C1', 'V1')).toBe(false);
      expect(await t.store.mutes.isMuted('T1', 'C1', 'V1', at(0))).toBeUndefined();
      expect(await t.store.mutes.isMuted('T1', 'C2', 'V1', at(0))).toBeDefined();
    });
  });

  describe('AlertRepo', () => {
    it('lets exactly one of 20 concurrent claims win, and keeps what it said', async () => {
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.store.alerts.claim(claim({ verdict: `verdict-${i}` }))),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const { firstSeen, lastSeen, teamId, channelId, visitorId, severity, reasons, visit } = claim();
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toEqual({
        teamId,
        channelId,
        visitorId,
        severity,
        verdict: `verdict-${wins.indexOf(true)}`,
        reasons,
        visit,
        firstSeen,
        lastSeen,
        sightings: 1,
        messageTs: undefined,
        threadTs: undefined,
        acknowledgedBy: undefined,
        acknowledgedAt: undefined,
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      });
    });

    it.runIf(t.kind === 'postgres')('lets exactly one win across two separate pools', async () => {
      const other = new AlertRepo(await t.openSibling());
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : t.store.alerts).claim(claim({ verdict: `verdict-${i}` })),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect((await other.get('T1', 'C1', 'V1'))?.verdict).toBe(`verdict-${wins.indexOf(true)}`);
    });

    it('claims per channel and visitor; firstSeen is optional', async () => {
      const { firstSeen: _, ...noFirstSeen } = claim();
      expect(await t.store.alerts.claim(noFirstSeen)).toBe(true);
      expect(await t.store.alerts.claim(claim({ channelId: 'C2' }))).toBe(true);
      expect(await t.store.alerts.claim(claim({ visitorId: 'V2' }))).toBe(true);
      expect(await t.store.alerts.claim(claim())).toBe(false);
      expect((await t.store.alerts.get('T1', 'C1', 'V1'))?.firstSeen).toBeUndefined();
      expect((await t.store.alerts.get('T1', 'C2', 'V1'))?.firstSeen).toEqual(at(-5));
      expect(await t.store.alerts.get('T1', 'C9', 'V1')).toBeUndefined();

      const many = await t.store.alerts.getMany('T1', 'C1', ['V1', 'V2', 'V3']);
      expect([...many.keys()].sort()).toEqual(['V1', 'V2']);
      expect(many.get('V2')).toEqual(await t.store.alerts.get('T1', 'C1', 'V2'));
      expect(await t.store.alerts.getMany('T1', 'C1', [])).toEqual(new Map());
    });

    it('records where the posted alert and its details are', async () => {
      await t.store.alerts.claim(claim());
      expect(await t.store.alerts.setPosted('T1', 'C1', 'V1', '1730707200.000100', '1730707100.000200')).toBe(true);
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toMatchObject({
        messageTs: '1730707200.000100',
        threadTs: '1730707100.000200',
      });
      expect(await t.store.alerts.setPosted('T1', 'C1', 'V9', '1.2', '1.2')).toBe(false);
    });

    it('records a post only from the delivery that announces the alert now; a move clears where it was', async () => {
      await t.store.alerts.claim(claim());
      expect(await t.store.alerts.announce('T1', 'C1', 'V1', 7, { groupId: 3 })).toBe(true);
      expect(await t.store.alerts.setPosted('T1', 'C1', 'V1', '10.1', '10.1', 7)).toBe(true);
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toMatchObject({
        messageTs: '10.1',
        threadTs: '10.1',
        deliveryId: 7,
        groupId: 3,
      });
      // Moved into its group's thread: no message until the new delivery is posted; the old one's late post records nothing.
      expect(await t.store.alerts.announce('T1', 'C1', 'V1', 9, { moved: true })).toBe(true);
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toMatchObject({
        messageTs: undefined,
        threadTs: undefined,
        deliveryId: 9,
        groupId: 3,
      });
      expect(await t.store.alerts.setPosted('T1', 'C1', 'V1', '10.1', '10.1', 7)).toBe(false);
      expect(await t.store.alerts.setPosted('T1', 'C1', 'V1', '12.1', '10.1', 9)).toBe(true);
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toMatchObject({ messageTs: '12.1', threadTs: '10.1' });
      expect(await t.store.alerts.announce('T1', 'C1', 'V9', 1)).toBe(false);
    });

    it("lists a group's alerts in the order their visitors showed up", async () => {
      await t.store.alerts.claim(claim({ visitorId: 'V2', firstSeen: at(1) }));
      await t.store.alerts.claim(claim({ visitorId: 'V1', firstSeen: at(2) }));
      await t.store.alerts.claim(claim({ visitorId: 'V3', firstSeen: undefined, lastSeen: at(3) }));
      await t.store.alerts.claim(claim({ visitorId: 'V4' }));
      for (const visitorId of ['V1', 'V2', 'V3'])
        await t.store.alerts.announce('T1', 'C1', visitorId, 1, { groupId: 5 });
      await t.store.alerts.announce('T1', 'C1', 'V4', 1, { groupId: 6 });
      expect((await t.store.alerts.inGroup('T1', 5)).map((a) => a.visitorId)).toEqual(['V2', 'V1', 'V3']);
      expect(await t.store.alerts.inGroup('T1', 7)).toEqual([]);
    });

    it('adds sightings, keeps the latest last_seen and replaces the visit', async () => {
      await t.store.alerts.claim(claim());
      const newer = await t.store.alerts.recordSighting('T1', 'C1', 'V1', {
        count: 3,
        lastSeen: at(10),
        visit: { id: 'visit-2' },
      });
      expect(newer).toMatchObject({ sightings: 4, lastSeen: at(10), visit: { id: 'visit-2' }, firstSeen: at(-5) });

      const older = await t.store.alerts.recordSighting('T1', 'C1', 'V1', {
        count: 2,
        lastSeen: at(5),
        visit: { id: 'visit-3' },
      });
      expect(older).toMatchObject({ sightings: 6, lastSeen: at(10), visit: { id: 'visit-3' } });
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toEqual(older);

      expect(
        await t.store.alerts.recordSighting('T1', 'C1', 'V9', { count: 1, lastSeen: at(1), visit: {} }),
      ).toBeUndefined();
    });

    it('counts every one of concurrent sightings', async () => {
      await t.store.alerts.claim(claim());
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.store.alerts.recordSighting('T1', 'C1', 'V1', { count: 1, lastSeen: at(i), visit: { id: `visit-${i}` } }),
        ),
      );
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toMatchObject({ sightings: 21, lastSeen: at(19) });
    });

    it('acknowledges once: the first acknowledgement stands', async () => {
      await t.store.alerts.claim(claim());
      const acked = await t.store.alerts.acknowledge('T1', 'C1', 'V1', 'U1', at(1));
      expect(acked).toMatchObject({ acknowledgedBy: 'U1', acknowledgedAt: at(1) });
      const again = await t.store.alerts.acknowledge('T1', 'C1', 'V1', 'U2', at(2));
      expect(again).toEqual(acked);
      expect(await t.store.alerts.acknowledge('T1', 'C1', 'V9', 'U1', at(1))).toBeUndefined();
    });

    it('raises to a higher severity and clears the acknowledgement', async () => {
      await t.store.alerts.claim(claim({ severity: 'low' }));
      await t.store.alerts.recordSighting('T1', 'C1', 'V1', { count: 2, lastSeen: at(10), visit: { id: 'visit-2' } });
      await t.store.alerts.acknowledge('T1', 'C1', 'V1', 'U1', at(1));
      const raised = await t.store.alerts.raise('T1', 'C1', 'V1', {
        severity: 'high',
        verdict: 'Bot',
        reasons: ['Scraping 400 pages a minute'],
        visit: { id: 'visit-3' },
        lastSeen: at(20),
      });
      expect(raised).toMatchObject({
        severity: 'high',
        verdict: 'Bot',
        reasons: ['Scraping 400 pages a minute'],
        visit: { id: 'visit-3' },
        lastSeen: at(20),
        firstSeen: at(-5),
        sightings: 3,
        acknowledgedBy: undefined,
        acknowledgedAt: undefined,
      });
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toEqual(raised);

      // Acknowledged again, then not higher: nothing changes.
      const acked = await t.store.alerts.acknowledge('T1', 'C1', 'V1', 'U2', at(21));
      for (const severity of ['high', 'medium', 'low'] as const) {
        expect(
          await t.store.alerts.raise('T1', 'C1', 'V1', {
            severity,
            verdict: 'x',
            reasons: [],
            visit: {},
            lastSeen: at(30),
          }),
        ).toBeUndefined();
      }
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toEqual(acked);
      expect(
        await t.store.alerts.raise('T1', 'C1', 'V9', {
          severity: 'high',
          verdict: 'x',
          reasons: [],
          visit: {},
          lastSeen: at(30),
        }),
      ).toBeUndefined();
    });

    it('raises low to medium, and never moves last_seen back', async () => {
      await t.store.alerts.claim(claim({ severity: 'low', lastSeen: at(10) }));
      const raised = await t.store.alerts.raise('T1', 'C1', 'V1', {
        severity: 'medium',
        verdict: 'Suspicious',
        reasons: ['VPN'],
        visit: { id: 'visit-0' },
        lastSeen: at(5),
      });
      expect(raised).toMatchObject({ severity: 'medium', lastSeen: at(10) });
    });

    it('forgets an alert so that it can be claimed again', async () => {
      await t.store.alerts.claim(claim());
      expect(await t.store.alerts.forget('T1', 'C1', 'V1')).toBe(true);
      expect(await t.store.alerts.forget('T1', 'C1', 'V1')).toBe(false);
      expect(await t.store.alerts.get('T1', 'C1', 'V1')).toBeUndefined();
      expect(await t.store.alerts.claim(claim())).toBe(true);
    });

    it('counts distinct visitors whose first to last visit seen overlaps [from, to), of a channel or all', async () => {
      await t.store.alerts.claim(claim({ visitorId: 'V1', firstSeen: at(0), lastSeen: at(0) }));
      await t.store.alerts.claim(claim({ visitorId: 'V2', firstSeen: at(10), lastSeen: at(30) }));
      await t.store.alerts.claim(claim({ visitorId: 'V3', firstSeen: at(60), lastSeen: at(60) }));
      await t.store.alerts.claim(claim({ channelId: 'C2', visitorId: 'V1', firstSeen: at(0), lastSeen: at(30) }));
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(0), at(60))).toBe(2);
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(0), at(61))).toBe(3);
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(1), at(60))).toBe(1);
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(20), at(25))).toBe(1); // V2 was about from 10 to 30
      // A visitor alerted in two channels is one visitor.
      expect(await t.store.alerts.countSeenBetween('T1', undefined, at(0), at(60))).toBe(2);
      expect(await t.store.alerts.countSeenBetween('T1', 'C2', at(0), at(60))).toBe(1);
      expect(await t.store.alerts.countSeenBetween('T1', 'C9', at(0), at(60))).toBe(0);

      // A later sighting stretches the visitor's span into later ranges.
      await t.store.alerts.recordSighting('T1', 'C1', 'V1', { count: 1, lastSeen: at(90), visit: {} });
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(60), at(120))).toBe(2);
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(40), at(50))).toBe(1);
      // No first visit known: its last is its span.
      await t.store.alerts.claim(claim({ visitorId: 'V4', firstSeen: undefined, lastSeen: at(200) }));
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(150), at(200))).toBe(0);
      expect(await t.store.alerts.countSeenBetween('T1', 'C1', at(200), at(201))).toBe(1);
    });
  });

  describe('AlertGroupRepo', () => {
    it('a group is open until its window ends; the latest open one of the channel is given', async () => {
      const groups = new AlertGroupRepo(t.db);
      const first = await groups.create({
        teamId: 'T1',
        channelId: 'C1',
        startedAt: at(0),
        endsAt: at(5),
        deliveryId: 11,
        summarised: false,
      });
      expect(first).toMatchObject({
        id: expect.any(Number),
        channelId: 'C1',
        startedAt: at(0),
        endsAt: at(5),
        deliveryId: 11,
        summarised: false,
      });
      await groups.create({
        teamId: 'T1',
        channelId: 'C2',
        startedAt: at(1),
        endsAt: at(6),
        deliveryId: 12,
        summarised: true,
      });
      expect(await groups.latestOpen('T1', 'C1', at(4))).toEqual(first);
      expect(await groups.latestOpen('T1', 'C1', at(5))).toBeUndefined();
      const second = await groups.create({
        teamId: 'T1',
        channelId: 'C1',
        startedAt: at(5),
        endsAt: at(10),
        deliveryId: 13,
        summarised: true,
      });
      expect((await groups.latestOpen('T1', 'C1', at(5)))?.id).toBe(second.id);
      await groups.summarise('T1', first.id);
      expect(await groups.latestOpen('T1', 'C1', at(1))).toMatchObject({ id: second.id });
      expect(await groups.latestOpen('T1', 'C3', at(1))).toBeUndefined();
    });

    it("one transaction at a time decides a channel's groups", async () => {
      if (t.kind === 'pglite') return; // one connection: nothing runs beside it
      const sibling = await t.openSibling();
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const first = t.db.transaction(async (tx) => {
        await new AlertGroupRepo(tx).lock('T1', 'C1');
        order.push('first locked');
        await held;
        order.push('first done');
      });
      await until(() => order.includes('first locked'), 'the first transaction to hold the lock');
      const second = sibling.transaction(async (tx) => {
        await new AlertGroupRepo(tx).lock('T1', 'C1');
        order.push('second locked');
      });
      const other = sibling.transaction(async (tx) => {
        await new AlertGroupRepo(tx).lock('T1', 'C2');
        order.push('other channel locked');
      });
      await other;
      await sleep(100); // time for the second to (wrongly) get the lock
      release();
      await Promise.all([first, second]);
      expect(order).toEqual(['first locked', 'other channel locked', 'first done', 'second locked']);
    });
  });

  describe('VisitorCheckRepo', () => {
    it("keeps each analytics account's answers apart: one account's visitor id says nothing of another's", async () => {
      await t.store.visitorChecks.save('A1', [{ visitorId: 'V1', facts: { bot: true }, checkedAt: at(0) }]);
      await t.store.visitorChecks.save('A2', [{ visitorId: 'V1', facts: { bot: false }, checkedAt: at(1) }]);
      expect((await t.store.visitorChecks.getFresh('A1', ['V1'], at(-1))).get('V1')?.facts).toEqual({ bot: true });
      expect((await t.store.visitorChecks.getFresh('A2', ['V1'], at(-1))).get('V1')?.facts).toEqual({ bot: false });
      expect((await t.store.visitorChecks.getFresh('A3', ['V1'], at(-1))).size).toBe(0);
    });

    it('saves 2,000 answers and gives back the fresh ones', async () => {
      const cutoff = at(0);
      const entries = Array.from({ length: 2_000 }, (_, i) => ({
        visitorId: `V${i}`,
        facts: { bot: i % 3 === 0, vpn: { result: i % 2 === 0, note: `it's "quoted" \\ ${i} ✓` }, tags: [i, null] },
        // Even ones fresh (one exactly at the cutoff), odd ones stale.
        checkedAt: i % 2 === 0 ? at(i === 0 ? 0 : 1) : at(-1),
      }));
      await t.store.visitorChecks.save('A1', entries);

      const ids = [...entries.map((e) => e.visitorId), 'V-unknown'];
      const fresh = await t.store.visitorChecks.getFresh('A1', ids, cutoff);
      expect(fresh.size).toBe(1_000);
      for (const entry of entries) {
        const got = fresh.get(entry.visitorId);
        if (Number(entry.visitorId.slice(1)) % 2 === 0)
          expect(got).toEqual({ facts: entry.facts, checkedAt: entry.checkedAt });
        else expect(got).toBeUndefined();
      }
      expect((await t.store.visitorChecks.getFresh('A1', ids, at(-2))).size).toBe(2_000);
      expect(await t.store.visitorChecks.getFresh('A1', [], at(-2))).toEqual(new Map());
    });

    it('replaces an answer only with a newer one; duplicates in one save keep the latest', async () => {
      await t.store.visitorChecks.save('A1', [{ visitorId: 'V1', facts: { v: 1 }, checkedAt: at(10) }]);
      await t.store.visitorChecks.save('A1', [{ visitorId: 'V1', facts: { v: 0 }, checkedAt: at(5) }]);
      expect((await t.store.visitorChecks.getFresh('A1', ['V1'], at(0))).get('V1')).toEqual({
        facts: { v: 1 },
        checkedAt: at(10),
      });
      await t.store.visitorChecks.save('A1', [
        { visitorId: 'V1', facts: { v: 3 }, checkedAt: at(20) },
        { visitorId: 'V1', facts: { v: 2 }, checkedAt: at(15) },
        { visitorId: 'V2', facts: 'plain', checkedAt: at(15) },
        { visitorId: 'V2', facts: ['again'], checkedAt: at(15) },
      ]);
      const got = await t.store.visitorChecks.getFresh('A1', ['V1', 'V2'], at(0));
      expect(got.get('V1')).toEqual({ facts: { v: 3 }, checkedAt: at(20) });
      expect(got.get('V2')).toEqual({ facts: ['again'], checkedAt: at(15) });
      await t.store.visitorChecks.save('A1', []);
    });

    it('prunes answers older than a moment', async () => {
      await t.store.visitorChecks.save('A1', [
        { visitorId: 'V1', facts: {}, checkedAt: at(-10) },
        { visitorId: 'V2', facts: {}, checkedAt: at(-1) },
        { visitorId: 'V3', facts: {}, checkedAt: at(0) },
      ]);
      expect(await t.store.visitorChecks.prune(at(0))).toBe(2);
      expect(await t.store.visitorChecks.prune(at(0))).toBe(0);
      expect([...(await t.store.visitorChecks.getFresh('A1', ['V1', 'V2', 'V3'], at(-60))).keys()]).toEqual(['V3']);
    });
  });

  describe('ScanStateRepo', () => {
    it("moves the state kept before scans had an account to the account's key once, never over one it has", async () => {
      await t.store.scanState.saveProgress('visits', { watermark: at(5), seenIds: ['visit-9'], counts: {}, at: at(6) });
      expect(await t.store.scanState.adopt('visits', 'visits@A1')).toBe(true);
      expect(await t.store.scanState.get('visits')).toBeUndefined();
      expect(await t.store.scanState.get('visits@A1')).toMatchObject({ watermark: at(5), seenIds: ['visit-9'] });
      // Again: nothing left to move; and an old row never replaces a key's own state.
      expect(await t.store.scanState.adopt('visits', 'visits@A1')).toBe(false);
      await t.store.scanState.saveProgress('visits', { watermark: at(1), seenIds: [], counts: {}, at: at(1) });
      expect(await t.store.scanState.adopt('visits', 'visits@A1')).toBe(false);
      expect((await t.store.scanState.get('visits@A1'))?.watermark).toEqual(at(5));
    });

    it('records progress, and an error that keeps the watermark', async () => {
      expect(await t.store.scanState.get('visits')).toBeUndefined();
      const progress = await t.store.scanState.saveProgress('visits', {
        watermark: at(0),
        seenIds: ['visit-1', 'visit-2'],
        counts: { visits: 120, checked: 40, alerts: 2 },
        at: at(1),
      });
      expect(progress).toEqual({
        key: 'visits',
        watermark: at(0),
        seenIds: ['visit-1', 'visit-2'],
        lastScanAt: at(1),
        lastError: undefined,
        lastErrorAt: undefined,
        lastCounts: { visits: 120, checked: 40, alerts: 2 },
        updatedAt: expect.any(Date),
      });
      expect(await t.store.scanState.get('visits')).toEqual(progress);

      const failed = await t.store.scanState.saveError('visits', 'HTTP 503 from the API', at(2));
      expect(failed).toEqual({
        ...progress,
        lastError: 'HTTP 503 from the API',
        lastErrorAt: at(2),
        updatedAt: expect.any(Date),
      });
      expect(await t.store.scanState.get('visits')).toEqual(failed);

      const next = await t.store.scanState.saveProgress('visits', {
        watermark: at(3),
        seenIds: [],
        counts: { visits: 0 },
        at: at(4),
      });
      expect(next).toMatchObject({ watermark: at(3), seenIds: [], lastScanAt: at(4), lastCounts: { visits: 0 } });
      expect(next.lastError).toBeUndefined();
      expect(next.lastErrorAt).toBeUndefined();
    });

    it('records an error before any progress, and keys are independent', async () => {
      const failed = await t.store.scanState.saveError('visits', 'boom', at(0));
      expect(failed).toEqual({
        key: 'visits',
        watermark: undefined,
        seenIds: [],
        lastScanAt: undefined,
        lastError: 'boom',
        lastErrorAt: at(0),
        lastCounts: undefined,
        updatedAt: expect.any(Date),
      });
      await t.store.scanState.saveProgress('other', { watermark: null, seenIds: [], counts: {}, at: at(1) });
      expect(await t.store.scanState.get('visits')).toEqual(failed);
      expect(await t.store.scanState.get('other')).toMatchObject({
        watermark: undefined,
        lastScanAt: at(1),
        lastCounts: {},
      });
    });
  });
});
