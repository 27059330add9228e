import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/platform/api/errors.js';
import { normaliseFlag } from '../../src/platform/api/schemas.js';
import type { SecurityCheck } from '../../src/kernel/records.js';
import type { VisitorProfile } from '../../src/features/visitor/card.js';
import {
  atLeast,
  DEFAULT_VERDICT_OPTIONS,
  judge,
  securityFacts,
  type SecurityFacts,
  type Severity,
  type VerdictName,
} from '../../src/kernel/verdict.js';

/** The answers as the API sends them (flags as raw strings); each goes through normaliseFlag like the schemas do. */
interface RawAnswers {
  is_attacker: unknown;
  is_threat: unknown;
  is_abuser: unknown;
  is_proxy: unknown;
  vpn: unknown;
  adblock: unknown;
  score: number | undefined;
  visitor_type: string | undefined;
  scraper_extension_list: string[];
}

/** A clean human, as the demo API answers for one. */
const CLEAN: RawAnswers = {
  is_attacker: 'False',
  is_threat: 'False',
  is_abuser: 'False',
  is_proxy: 'False',
  vpn: 'False',
  adblock: 'No',
  score: 0.1,
  visitor_type: 'HUMAN',
  scraper_extension_list: [],
};

type Failed = Partial<Record<SecurityCheck, string>>;

function facts(raw: Partial<RawAnswers> = {}, failed: Failed = {}): SecurityFacts {
  const r = { ...CLEAN, ...raw };
  const all: SecurityFacts = {
    bot: {
      is_attacker: normaliseFlag(r.is_attacker),
      is_threat: normaliseFlag(r.is_threat),
      is_abuser: normaliseFlag(r.is_abuser),
      is_proxy: normaliseFlag(r.is_proxy),
    },
    scraping: { score: r.score, visitor_type: r.visitor_type },
    vpn: { vpn: normaliseFlag(r.vpn) },
    extensions: { scraper_extension_list: r.scraper_extension_list },
    adblock: { adblock: normaliseFlag(r.adblock) },
    unavailable: {},
  };
  for (const [check, why] of Object.entries(failed) as [SecurityCheck, string][]) {
    delete all[check];
    all.unavailable![check] = why;
  }
  return all;
}

const UNKNOWN_EVERYWHERE: Partial<RawAnswers> = {
  is_attacker: 'Unknown',
  is_threat: 'Unknown',
  is_abuser: 'Unknown',
  is_proxy: 'Unknown',
  vpn: 'Unknown',
  adblock: 'Unknown',
  score: undefined,
  visitor_type: 'Unknown',
};

interface Case {
  name: string;
  raw?: Partial<RawAnswers>;
  failed?: Failed;
  threshold?: number;
  verdict: VerdictName;
  severity?: Severity;
  reasons: string[];
  gaps?: string[];
}

const CASES: Case[] = [
  // One rule at a time.
  {
    name: 'attacker',
    raw: { is_attacker: 'True' },
    verdict: 'Threat',
    severity: 'high',
    reasons: ['flagged as attacker'],
  },
  {
    name: 'threat flag',
    raw: { is_threat: 'True' },
    verdict: 'Threat',
    severity: 'high',
    reasons: ['flagged as a threat'],
  },
  {
    name: 'abuser',
    raw: { is_abuser: 'True' },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['flagged as abuser'],
  },
  {
    name: 'scraping score above the threshold, with its type (said once, not again as a type)',
    raw: { score: 0.93, visitor_type: 'BOT' },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['scraping score 0.93, type BOT'],
  },
  {
    name: 'scraping score exactly at the threshold',
    raw: { score: 0.8, visitor_type: 'SCRAPER' },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['scraping score 0.80, type SCRAPER'],
  },
  {
    name: 'scraping score without a type',
    raw: { score: 0.9, visitor_type: undefined },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['scraping score 0.90'],
  },
  {
    name: 'score just below the threshold, human type: no reason',
    raw: { score: 0.79, visitor_type: 'HUMAN' },
    verdict: 'Human',
    reasons: [],
  },
  {
    name: 'score just below the threshold, bot type: only the type, low',
    raw: { score: 0.79, visitor_type: 'BOT' },
    verdict: 'Suspicious',
    severity: 'low',
    reasons: ['visitor type BOT'],
  },
  {
    name: 'a lower threshold (0.5) makes 0.6 a scraping reason',
    raw: { score: 0.6, visitor_type: 'BOT' },
    threshold: 0.5,
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['scraping score 0.60, type BOT'],
  },
  {
    name: 'a higher threshold (0.95) leaves 0.93 as a type only',
    raw: { score: 0.93, visitor_type: 'BOT' },
    threshold: 0.95,
    verdict: 'Suspicious',
    severity: 'low',
    reasons: ['visitor type BOT'],
  },
  {
    name: 'crawler with a low score',
    raw: { score: 0.2, visitor_type: 'CRAWLER' },
    verdict: 'Suspicious',
    severity: 'low',
    reasons: ['visitor type CRAWLER'],
  },
  {
    name: 'human type in any case and spacing',
    raw: { score: 0.05, visitor_type: ' Human ' },
    verdict: 'Human',
    reasons: [],
  },
  {
    name: 'one scraper extension',
    raw: { scraper_extension_list: ['Web Scraper'] },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['1 scraper extension: Web Scraper'],
  },
  {
    name: 'two scraper extensions',
    raw: { scraper_extension_list: ['Web Scraper', 'Data Miner'] },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['2 scraper extensions: Web Scraper, Data Miner'],
  },
  {
    name: 'seven scraper extensions: five named, the rest counted',
    raw: { scraper_extension_list: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: ['7 scraper extensions: a, b, c, d, e, and 2 more'],
  },
  { name: 'proxy', raw: { is_proxy: 'True' }, verdict: 'Suspicious', severity: 'low', reasons: ['proxy'] },
  { name: 'VPN', raw: { vpn: 'True' }, verdict: 'Suspicious', severity: 'low', reasons: ['VPN'] },
  { name: 'an ad blocker is no reason', raw: { adblock: 'Yes' }, verdict: 'Human', reasons: [] },

  // Combinations: the highest severity wins, every reason is listed in rule order.
  {
    name: 'the demo attacker: everything at once',
    raw: {
      is_attacker: 'True',
      is_threat: 'True',
      is_abuser: 'True',
      is_proxy: 'True',
      vpn: 'True',
      score: 0.86,
      visitor_type: 'BOT',
    },
    verdict: 'Threat',
    severity: 'high',
    reasons: [
      'flagged as attacker',
      'flagged as a threat',
      'flagged as abuser',
      'scraping score 0.86, type BOT',
      'proxy',
      'VPN',
    ],
  },
  {
    name: 'the demo scraper: medium beats low',
    raw: {
      is_abuser: 'True',
      is_proxy: 'True',
      score: 0.97,
      visitor_type: 'SCRAPER',
      scraper_extension_list: ['Web Scraper', 'Data Miner'],
    },
    verdict: 'Suspicious',
    severity: 'medium',
    reasons: [
      'flagged as abuser',
      'scraping score 0.97, type SCRAPER',
      '2 scraper extensions: Web Scraper, Data Miner',
      'proxy',
    ],
  },
  {
    name: 'listed in rule order, not in the order found: VPN, proxy and a crawler type',
    raw: { vpn: 'True', is_proxy: 'True', score: 0.3, visitor_type: 'CRAWLER' },
    verdict: 'Suspicious',
    severity: 'low',
    reasons: ['visitor type CRAWLER', 'proxy', 'VPN'],
  },
  {
    name: 'a low reason beside a high one stays listed',
    raw: { vpn: 'True', is_threat: 'True' },
    verdict: 'Threat',
    severity: 'high',
    reasons: ['flagged as a threat', 'VPN'],
  },

  // A clean human.
  { name: 'a clean human', verdict: 'Human', reasons: [], gaps: [] },

  // Every way of not knowing.
  {
    name: 'unknown everywhere',
    raw: UNKNOWN_EVERYWHERE,
    verdict: 'Unknown',
    reasons: [],
    gaps: ['bot status unknown', 'scraping status unknown', 'VPN status unknown'],
  },
  {
    name: 'bot unknown, scraping known',
    raw: { is_attacker: 'Unknown', is_threat: 'Unknown', is_abuser: 'Unknown' },
    verdict: 'Unknown',
    reasons: [],
    gaps: ['bot status unknown'],
  },
  {
    name: 'attacker and threat unknown, abuser answered: still not enough to call human, and says why',
    raw: { is_attacker: 'Unknown', is_threat: 'Unknown', is_abuser: 'False' },
    verdict: 'Unknown',
    reasons: [],
    gaps: ['bot status unknown'],
  },
  {
    name: 'bot known, scraping answered without a score or type',
    raw: { score: undefined, visitor_type: 'Unknown' },
    verdict: 'Unknown',
    reasons: [],
    gaps: ['scraping status unknown'],
  },
  {
    name: 'bot known, scraping answered with an empty type and no score',
    raw: { score: undefined, visitor_type: '' },
    verdict: 'Unknown',
    reasons: [],
    gaps: ['scraping status unknown'],
  },
  {
    name: 'a human type without a score is enough',
    raw: { score: undefined, visitor_type: 'HUMAN' },
    verdict: 'Human',
    reasons: [],
    gaps: [],
  },
  {
    name: 'scraping lookup failed',
    failed: { scraping: 'timeout' },
    verdict: 'Unknown',
    reasons: [],
    gaps: ['scraping status unavailable (timeout)'],
  },
  {
    name: 'bot lookup failed',
    failed: { bot: 'unavailable' },
    verdict: 'Unknown',
    reasons: [],
    gaps: ['bot status unavailable (unavailable)'],
  },
  {
    name: 'every lookup failed',
    failed: { adblock: 'timeout', bot: 'timeout', scraping: 'timeout', vpn: 'timeout', extensions: 'timeout' },
    verdict: 'Unknown',
    reasons: [],
    gaps: [
      'adblock status unavailable (timeout)',
      'bot status unavailable (timeout)',
      'scraping status unavailable (timeout)',
      'vpn status unavailable (timeout)',
      'extensions status unavailable (timeout)',
    ],
  },
  {
    name: 'a failed lookup beside a reason: the reason stands, the gap is listed',
    raw: { is_attacker: 'True' },
    failed: { vpn: 'timeout' },
    verdict: 'Threat',
    severity: 'high',
    reasons: ['flagged as attacker'],
    gaps: ['vpn status unavailable (timeout)'],
  },
  {
    name: 'a human whose VPN status is unknown: human, with the gap beside it',
    raw: { vpn: 'Unknown' },
    verdict: 'Human',
    reasons: [],
    gaps: ['VPN status unknown'],
  },
  {
    name: 'a human whose extensions lookup failed: human, with the gap beside it',
    failed: { extensions: 'timeout' },
    verdict: 'Human',
    reasons: [],
    gaps: ['extensions status unavailable (timeout)'],
  },
  {
    name: 'unknown flags are never reasons',
    raw: { is_proxy: 'Unknown', adblock: 'Unknown' },
    verdict: 'Human',
    reasons: [],
    gaps: [],
  },
];

describe('judge: the rules case by case', () => {
  it.each(CASES)('$name', (c) => {
    const options = c.threshold === undefined ? DEFAULT_VERDICT_OPTIONS : { scrapingScoreThreshold: c.threshold };
    const verdict = judge(facts(c.raw, c.failed), options);
    expect(verdict.name).toBe(c.verdict);
    expect(verdict.severity).toBe(c.severity);
    expect(verdict.reasons.map((r) => r.text)).toEqual(c.reasons);
    if (c.gaps) expect(verdict.gaps).toEqual(c.gaps);
  });

  it('defaults to a threshold of 0.8', () => {
    expect(judge(facts({ score: 0.8, visitor_type: 'BOT' })).reasons.map((r) => r.rule)).toEqual(['scraping-score']);
    expect(judge(facts({ score: 0.79, visitor_type: 'BOT' })).reasons.map((r) => r.rule)).toEqual(['bot-type']);
  });

  it('the same answers change verdict with the threshold', () => {
    const answers = facts({ score: 0.6, visitor_type: 'HUMAN' });
    expect(judge(answers).name).toBe('Human');
    const strict = judge(answers, { scrapingScoreThreshold: 0.5 });
    expect(strict.name).toBe('Suspicious');
    expect(strict.reasons.map((r) => r.text)).toEqual(['scraping score 0.60, type HUMAN']);
  });

  it('each reason carries its rule id and its severity', () => {
    const verdict = judge(facts({ is_attacker: 'True', is_proxy: 'True', scraper_extension_list: ['x'] }));
    expect(verdict.reasons).toEqual([
      { rule: 'attacker', severity: 'high', text: 'flagged as attacker' },
      { rule: 'scraper-extensions', severity: 'medium', text: '1 scraper extension: x' },
      { rule: 'proxy', severity: 'low', text: 'proxy' },
    ]);
  });

  it('names a failed lookup by the words the profile gives (error kind with spaces)', () => {
    const failed = {
      ok: false as const,
      error: new ApiError('bad_response', 'unreadable', { path: '/security/scraping-status/…' }),
    };
    const clean = facts();
    const profile: Pick<VisitorProfile, 'security'> = {
      security: {
        bot: { ok: true, value: clean.bot! },
        scraping: failed,
        vpn: { ok: true, value: clean.vpn! },
        extensions: { ok: true, value: { ...clean.extensions!, adblock: normaliseFlag('No') } },
        adblock: { ok: true, value: { ...clean.adblock!, adblock_extension: undefined } },
      },
    };
    const verdict = judge(securityFacts(profile.security));
    expect(verdict.name).toBe('Unknown');
    expect(verdict.gaps).toEqual(['scraping status unavailable (bad response)']);
  });
});

describe('judge: raw flags in any spelling', () => {
  it.each([['True'], ['TRUE'], ['true'], [true], ['yes'], ['Yes'], ['1'], [1], [' True ']])(
    'attacker %j counts as yes',
    (raw) => {
      const verdict = judge(facts({ is_attacker: raw }));
      expect(verdict.name).toBe('Threat');
      expect(verdict.reasons.map((r) => r.text)).toEqual(['flagged as attacker']);
    },
  );

  it.each([['False'], ['FALSE'], [false], ['no'], ['0'], [0]])('attacker %j counts as no', (raw) => {
    expect(judge(facts({ is_attacker: raw })).name).toBe('Human');
  });

  it.each([['Unknown'], ['UNKNOWN'], [''], [null], [undefined], ['maybe']])(
    'VPN %j counts as unknown: no reason, a gap',
    (raw) => {
      const verdict = judge(facts({ vpn: raw }));
      expect(verdict.reasons).toEqual([]);
      expect(verdict.gaps).toEqual(['VPN status unknown']);
    },
  );

  it.each([['True'], ['TRUE'], [true], ['yes'], ['1']])('VPN and proxy %j are reasons', (raw) => {
    const verdict = judge(facts({ vpn: raw, is_proxy: raw }));
    expect(verdict.reasons.map((r) => r.text)).toEqual(['proxy', 'VPN']);
  });
});

describe('judge: what holds for every combination', () => {
  const FLAGS = ['True', 'False', 'Unknown'];
  const SCRAPING: Partial<RawAnswers>[] = [
    { score: 0.1, visitor_type: 'HUMAN' },
    { score: 0.95, visitor_type: 'BOT' },
    { score: 0.3, visitor_type: 'CRAWLER' },
    { score: undefined, visitor_type: 'Unknown' },
    { score: undefined, visitor_type: 'HUMAN' },
  ];
  const FAILURES: Failed[] = [
    {},
    { bot: 'timeout' },
    { scraping: 'timeout' },
    { vpn: 'timeout' },
    { bot: 'timeout', scraping: 'timeout' },
  ];
  const all: { raw: Partial<RawAnswers>; failed: Failed }[] = [];
  for (const is_attacker of FLAGS)
    for (const is_threat of FLAGS)
      for (const is_abuser of FLAGS)
        for (const is_proxy of FLAGS)
          for (const vpn of FLAGS)
            for (const scraping of SCRAPING)
              for (const failed of FAILURES)
                all.push({ raw: { is_attacker, is_threat, is_abuser, is_proxy, vpn, ...scraping }, failed });

  it(`an Unknown always says what is unknown, and a Human is never called on missing bot or scraping answers (${all.length} combinations)`, () => {
    for (const { raw, failed } of all) {
      const f = facts(raw, failed);
      const verdict = judge(f);
      const label = JSON.stringify({ raw, failed });
      if (verdict.name === 'Unknown') expect(verdict.gaps, label).not.toEqual([]);
      if (verdict.name === 'Human') {
        expect(f.bot, label).toBeDefined();
        expect(f.scraping, label).toBeDefined();
        expect([f.bot!.is_attacker.value, f.bot!.is_threat.value], label).not.toEqual(['unknown', 'unknown']);
      }
      if (verdict.reasons.length === 0) expect(['Human', 'Unknown'], label).toContain(verdict.name);
      else expect(['Threat', 'Suspicious'], label).toContain(verdict.name);
      expect(verdict.name === 'Threat', label).toBe(verdict.reasons.some((r) => r.severity === 'high'));
      expect(new Set(verdict.gaps).size, label).toBe(verdict.gaps.length);
    }
  });
});

describe('atLeast', () => {
  it.each([
    ['high', 'high', true],
    ['high', 'medium', true],
    ['high', 'low', true],
    ['medium', 'high', false],
    ['medium', 'medium', true],
    ['medium', 'low', true],
    ['low', 'high', false],
    ['low', 'medium', false],
    ['low', 'low', true],
    [undefined, 'low', false],
    [undefined, 'high', false],
  ] as const)('%s at least %s: %s', (severity, minimum, expected) => {
    expect(atLeast(severity, minimum)).toBe(expected);
  });

  it('a Human or Unknown verdict (no severity) never passes an alert threshold', () => {
    expect(atLeast(judge(facts()).severity, 'low')).toBe(false);
    expect(atLeast(judge(facts(UNKNOWN_EVERYWHERE)).severity, 'low')).toBe(false);
    expect(atLeast(judge(facts({ vpn: 'True' })).severity, 'low')).toBe(true);
    expect(atLeast(judge(facts({ vpn: 'True' })).severity, 'medium')).toBe(false);
  });
});
