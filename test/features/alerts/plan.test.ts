import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GROUPINGS,
  planChannel,
  planDelivery,
  type ChannelScan,
  type Existing,
  type NewAlert,
} from '../../../src/features/alerts/plan.js';
import type { Flag, FlagValue, VisitRecord } from '../../../src/kernel/records.js';
import {
  ALERT_CHECKS,
  DEFAULT_VERDICT_OPTIONS,
  judge,
  onlyChecks,
  severityRank,
  SEVERITIES,
  type SecurityFacts,
  type Severity,
} from '../../../src/kernel/verdict.js';

const flag = (value: FlagValue): Flag => ({ value, raw: value });
const visit = (visitorId: string, second: number): VisitRecord => ({
  id: `${visitorId}-${second}`,
  visitor_id: visitorId,
  date: new Date(Date.UTC(2026, 10, 23, 10, 0, second)).toISOString(),
  url: `/p${second}`,
});

const CLEAN: SecurityFacts = {
  bot: { is_attacker: flag('no'), is_threat: flag('no'), is_abuser: flag('no'), is_proxy: flag('no') },
  scraping: { score: 0.1, visitor_type: 'human' },
  vpn: { vpn: flag('no') },
  extensions: { scraper_extension_list: [] },
};
const ATTACKER: SecurityFacts = { ...CLEAN, bot: { ...CLEAN.bot!, is_attacker: flag('yes') } };
const ABUSER: SecurityFacts = { ...CLEAN, bot: { ...CLEAN.bot!, is_abuser: flag('yes') } };
const VPN: SecurityFacts = { ...CLEAN, vpn: { vpn: flag('yes') } };

function scan(over: Partial<ChannelScan>): ChannelScan {
  return {
    subscription: { minSeverity: 'medium', checks: [...ALERT_CHECKS] },
    visits: new Map(),
    facts: new Map(),
    existing: new Map(),
    muted: new Set(),
    verdict: DEFAULT_VERDICT_OPTIONS,
    ...over,
  };
}

describe('planChannel: examples', () => {
  it('a new attacker is a new high alert; a clean visitor and one below the minimum are nothing', () => {
    const decisions = planChannel(
      scan({
        visits: new Map([
          ['v_attacker', [visit('v_attacker', 1), visit('v_attacker', 5)]],
          ['v_clean', [visit('v_clean', 2)]],
          ['v_vpn', [visit('v_vpn', 3)]],
        ]),
        facts: new Map([
          ['v_attacker', ATTACKER],
          ['v_clean', CLEAN],
          ['v_vpn', VPN],
        ]),
      }),
    );
    expect(decisions).toEqual([
      expect.objectContaining({
        kind: 'new',
        visitorId: 'v_attacker',
        severity: 'high',
        verdict: 'Threat',
        visits: 2,
        first: visit('v_attacker', 1),
        last: visit('v_attacker', 5),
      }),
    ]);
  });

  it('an alerted visitor whose severity rose is raised; one that did not is a sighting in its thread', () => {
    const decisions = planChannel(
      scan({
        visits: new Map([
          ['v_up', [visit('v_up', 1)]],
          ['v_same', [visit('v_same', 2), visit('v_same', 3)]],
        ]),
        facts: new Map([
          ['v_up', ATTACKER],
          ['v_same', ABUSER],
        ]),
        existing: new Map<string, Existing>([
          ['v_up', { severity: 'medium', messageTs: '1.1', threadTs: '1.1' }],
          ['v_same', { severity: 'medium', messageTs: '2.2', threadTs: '0.9' }],
        ]),
      }),
    );
    expect(decisions).toEqual([
      expect.objectContaining({ kind: 'raise', visitorId: 'v_up', severity: 'high', reasons: ['flagged as attacker'] }),
      { kind: 'sighting', visitorId: 'v_same', visits: 2, last: visit('v_same', 3), messageTs: '2.2', threadTs: '0.9' },
    ]);
  });

  it('a muted visitor, and one whose alert is still being posted, get nothing', () => {
    const decisions = planChannel(
      scan({
        visits: new Map([
          ['v_muted', [visit('v_muted', 1)]],
          ['v_posting', [visit('v_posting', 2)]],
        ]),
        facts: new Map([
          ['v_muted', ATTACKER],
          ['v_posting', ATTACKER],
        ]),
        existing: new Map<string, Existing>([['v_posting', { severity: 'high' }]]),
        muted: new Set(['v_muted']),
      }),
    );
    expect(decisions).toEqual([]);
  });

  it('only the checks the channel chose count: an attacker is nothing to a VPN-only channel', () => {
    const decisions = planChannel(
      scan({
        subscription: { minSeverity: 'low', checks: ['vpn'] },
        visits: new Map([['v_a', [visit('v_a', 1)]]]),
        facts: new Map([['v_a', ATTACKER]]),
      }),
    );
    expect(decisions).toEqual([]);
  });
});

const severity = fc.constantFrom<Severity>(...SEVERITIES);
const flagValue = fc.constantFrom<FlagValue>('yes', 'no', 'unknown');
const facts = fc
  .record({
    attacker: flagValue,
    threat: flagValue,
    abuser: flagValue,
    proxy: flagValue,
    vpn: flagValue,
    score: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    extensions: fc.array(fc.constantFrom('scraper-x', 'grabber'), { maxLength: 2 }),
  })
  .map((f): SecurityFacts => ({
    bot: {
      is_attacker: flag(f.attacker),
      is_threat: flag(f.threat),
      is_abuser: flag(f.abuser),
      is_proxy: flag(f.proxy),
    },
    scraping: { score: f.score },
    vpn: { vpn: flag(f.vpn) },
    extensions: { scraper_extension_list: f.extensions },
  }));
const visitorIds = fc.uniqueArray(fc.constantFrom('v1', 'v2', 'v3', 'v4', 'v5', 'v6'), { minLength: 1, maxLength: 6 });
const scans = visitorIds.chain((ids) =>
  fc.record({
    minSeverity: severity,
    checks: fc.subarray([...ALERT_CHECKS], { minLength: 1 }),
    perVisitor: fc.tuple(
      ...ids.map((id) =>
        fc.record({
          id: fc.constant(id),
          visits: fc.integer({ min: 1, max: 4 }),
          facts,
          existing: fc.option(fc.record({ severity, messageTs: fc.option(fc.constant('1.1'), { nil: undefined }) }), {
            nil: undefined,
          }),
          muted: fc.boolean(),
        }),
      ),
    ),
  }),
);

describe('planChannel: properties', () => {
  it('at most one decision a visitor, each as the verdict and the channel say', () => {
    fc.assert(
      fc.property(scans, ({ minSeverity, checks, perVisitor }) => {
        const input = scan({
          subscription: { minSeverity, checks },
          visits: new Map(perVisitor.map((v) => [v.id, Array.from({ length: v.visits }, (_, i) => visit(v.id, i))])),
          facts: new Map(perVisitor.map((v) => [v.id, v.facts])),
          existing: new Map(perVisitor.flatMap((v) => (v.existing ? [[v.id, v.existing] as const] : []))),
          muted: new Set(perVisitor.filter((v) => v.muted).map((v) => v.id)),
        });
        const decisions = planChannel(input);
        expect(new Set(decisions.map((d) => d.visitorId)).size).toBe(decisions.length);
        for (const v of perVisitor) {
          const decision = decisions.find((d) => d.visitorId === v.id);
          const judged = judge(onlyChecks(v.facts, checks));
          if (v.muted || (v.existing && !v.existing.messageTs)) {
            expect(decision).toBeUndefined();
          } else if (v.existing) {
            const rose =
              judged.severity !== undefined && severityRank(judged.severity) > severityRank(v.existing.severity);
            expect(decision?.kind).toBe(rose ? 'raise' : 'sighting');
            if (decision?.kind === 'sighting') expect(decision.visits).toBe(v.visits);
          } else if (judged.severity !== undefined && severityRank(judged.severity) >= severityRank(minSeverity)) {
            expect(decision).toMatchObject({ kind: 'new', severity: judged.severity, visits: v.visits });
          } else {
            expect(decision).toBeUndefined();
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic: the same scan plans the same', () => {
    fc.assert(
      fc.property(scans, ({ minSeverity, checks, perVisitor }) => {
        const input = scan({
          subscription: { minSeverity, checks },
          visits: new Map(perVisitor.map((v) => [v.id, [visit(v.id, 1)]])),
          facts: new Map(perVisitor.map((v) => [v.id, v.facts])),
        });
        expect(planChannel(input)).toEqual(planChannel(input));
      }),
      { numRuns: 100 },
    );
  });
});

describe('planDelivery', () => {
  const alert = (visitorId: string, severity: Severity): NewAlert => ({
    kind: 'new',
    visitorId,
    severity,
    verdict: 'Suspicious',
    reasons: [],
    first: visit(visitorId, 1),
    last: visit(visitorId, 1),
    visits: 1,
  });
  const grouping = fc.constantFrom(...GROUPINGS);
  const open = fc.option(fc.record({ summarised: fc.boolean() }), { nil: undefined });

  it('every alert claimed goes out once, the most severe first', () => {
    fc.assert(
      fc.property(
        fc.array(severity, { maxLength: 30 }),
        fc.integer({ min: 0, max: 10 }),
        grouping,
        open,
        (severities, burst, g, o) => {
          const claimed = severities.map((s, i) => alert(`v${i}`, s));
          const plan = planDelivery(claimed, { grouping: g, burst, ...(o ? { open: o } : {}) });
          expect([...plan.alerts].map((a) => a.visitorId).sort()).toEqual(claimed.map((a) => a.visitorId).sort());
          for (let i = 1; i < plan.alerts.length; i++)
            expect(severityRank(plan.alerts[i - 1]!.severity)).toBeGreaterThanOrEqual(
              severityRank(plan.alerts[i]!.severity),
            );
        },
      ),
    );
  });

  it('one message each: a closed group of their own only when there are more than the burst', () => {
    fc.assert(
      fc.property(
        fc.array(severity, { maxLength: 30 }),
        fc.integer({ min: 1, max: 10 }),
        open,
        (severities, burst, o) => {
          const claimed = severities.map((s, i) => alert(`v${i}`, s));
          const plan = planDelivery(claimed, { grouping: 'each', burst, ...(o ? { open: o } : {}) });
          if (claimed.length > burst) expect(plan).toMatchObject({ kind: 'start', summary: true, closed: true });
          else expect(plan.kind).toBe('each');
        },
      ),
    );
  });

  it('grouped: into the open group (its lone first alert becomes the summary), else a new one, a summary only for more than one', () => {
    const two = [alert('v1', 'medium'), alert('v2', 'high')];
    expect(planDelivery(two.slice(0, 1), { grouping: 'grouped', burst: 5 })).toMatchObject({
      kind: 'start',
      summary: false,
      closed: false,
    });
    expect(planDelivery(two, { grouping: 'grouped', burst: 5 })).toMatchObject({
      kind: 'start',
      summary: true,
      closed: false,
      alerts: [{ visitorId: 'v2' }, { visitorId: 'v1' }],
    });
    expect(planDelivery(two.slice(0, 1), { grouping: 'grouped', burst: 5, open: { summarised: false } })).toMatchObject(
      { kind: 'join', convert: true },
    );
    expect(planDelivery(two, { grouping: 'grouped', burst: 5, open: { summarised: true } })).toMatchObject({
      kind: 'join',
      convert: false,
    });
    // The burst is for channels that take one message each.
    expect(planDelivery(two, { grouping: 'grouped', burst: 0 })).toMatchObject({ kind: 'start', closed: false });
  });
});
