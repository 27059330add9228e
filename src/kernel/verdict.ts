/**
 * A visitor's security answers → a verdict (Threat, Suspicious, Human, Unknown),
 * a severity, and the reasons in words. The rules are data: each looks at one
 * answer and may give a reason with a severity. Shared by /visitor and the
 * threat alerts.
 */
import { counted } from './format.js';
import { SECURITY_CHECKS, type Flag, type Part, type SecurityAnswers, type SecurityCheck } from './records.js';

/** From the lowest up. */
export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The checks a threat-alert subscription may watch (the ad blocker says nothing about threats). */
export const ALERT_CHECKS = ['bot', 'scraping', 'vpn', 'extensions'] as const satisfies readonly SecurityCheck[];
export type AlertCheck = (typeof ALERT_CHECKS)[number];

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}
export type VerdictName = 'Threat' | 'Suspicious' | 'Human' | 'Unknown';

/** What the five lookups said; a lookup that failed is absent and named in `unavailable`. */
export interface SecurityFacts {
  bot?: { is_attacker: Flag; is_threat: Flag; is_abuser: Flag; is_proxy: Flag };
  scraping?: { score?: number; visitor_type?: string };
  vpn?: { vpn: Flag };
  extensions?: { scraper_extension_list: string[] };
  adblock?: { adblock: Flag };
  /** Checks that failed, with why ("timed out"). */
  unavailable?: Partial<Record<SecurityCheck, string>>;
}

export interface VerdictOptions {
  /** A scraping score at or above this is a reason (default 0.8). */
  scrapingScoreThreshold: number;
}

export const DEFAULT_VERDICT_OPTIONS: VerdictOptions = { scrapingScoreThreshold: 0.8 };

/**
 * The answers that came back, in the shape the rules read. A lookup that failed is named
 * in `unavailable` with why; one that was not asked is simply absent.
 */
export function securityFacts(parts: { [K in SecurityCheck]?: Part<SecurityAnswers[K]> }): SecurityFacts {
  const unavailable: Partial<Record<SecurityCheck, string>> = {};
  for (const check of SECURITY_CHECKS) {
    const part = parts[check];
    if (part && !part.ok) unavailable[check] = part.error.kind.replace(/_/g, ' ');
  }
  const value = <K extends SecurityCheck>(check: K): SecurityAnswers[K] | undefined => {
    const part = parts[check];
    return part?.ok ? part.value : undefined;
  };
  const scraping = value('scraping');
  return {
    bot: value('bot'),
    scraping: scraping ? { score: scraping.score, visitor_type: scraping.visitor_type } : undefined,
    vpn: value('vpn'),
    extensions: value('extensions'),
    adblock: value('adblock'),
    unavailable,
  };
}

export interface Reason {
  rule: string;
  severity: Severity;
  text: string;
}

export interface Verdict {
  name: VerdictName;
  /** The highest severity among the reasons; undefined for Human and Unknown. */
  severity?: Severity;
  reasons: Reason[];
  /** What could not be judged ("bot status unknown"), shown with Unknown and beside others. */
  gaps: string[];
}

interface Rule {
  id: string;
  severity: Severity;
  reason(facts: SecurityFacts, options: VerdictOptions): string | undefined;
}

const HUMAN_TYPES = new Set(['human', 'unknown', '']);

/** Ordered as they are listed: the most serious first. */
export const RULES: readonly Rule[] = [
  {
    id: 'attacker',
    severity: 'high',
    reason: (f) => (f.bot?.is_attacker.value === 'yes' ? 'flagged as attacker' : undefined),
  },
  {
    id: 'threat',
    severity: 'high',
    reason: (f) => (f.bot?.is_threat.value === 'yes' ? 'flagged as a threat' : undefined),
  },
  {
    id: 'abuser',
    severity: 'medium',
    reason: (f) => (f.bot?.is_abuser.value === 'yes' ? 'flagged as abuser' : undefined),
  },
  {
    id: 'scraping-score',
    severity: 'medium',
    reason: (f, o) => {
      const score = f.scraping?.score;
      if (score === undefined || score < o.scrapingScoreThreshold) return undefined;
      const type = f.scraping?.visitor_type;
      return `scraping score ${score.toFixed(2)}${type ? `, type ${type}` : ''}`;
    },
  },
  {
    id: 'scraper-extensions',
    severity: 'medium',
    reason: (f) => {
      const list = f.extensions?.scraper_extension_list ?? [];
      if (list.length === 0) return undefined;
      const shown = list.slice(0, 5).join(', ') + (list.length > 5 ? `, and ${list.length - 5} more` : '');
      return `${counted(list.length, 'scraper extension')}: ${shown}`;
    },
  },
  {
    id: 'bot-type',
    severity: 'low',
    reason: (f, o) => {
      const type = f.scraping?.visitor_type;
      const score = f.scraping?.score;
      if (!type || HUMAN_TYPES.has(type.trim().toLowerCase())) return undefined;
      if (score !== undefined && score >= o.scrapingScoreThreshold) return undefined; // said with the score
      return `visitor type ${type}`;
    },
  },
  { id: 'proxy', severity: 'low', reason: (f) => (f.bot?.is_proxy.value === 'yes' ? 'proxy' : undefined) },
  { id: 'vpn', severity: 'low', reason: (f) => (f.vpn?.vpn.value === 'yes' ? 'VPN' : undefined) },
];

const RANK: Record<Severity, number> = { high: 3, medium: 2, low: 1 };

export function atLeast(severity: Severity | undefined, minimum: Severity): boolean {
  return severity !== undefined && RANK[severity] >= RANK[minimum];
}

/** What could not be judged, in words. */
function gapsOf(f: SecurityFacts): string[] {
  const gaps: string[] = [];
  for (const [check, why] of Object.entries(f.unavailable ?? {})) gaps.push(`${check} status unavailable (${why})`);
  // The same flags `judge` needs to call a visitor human: an Unknown must say why.
  const botFlags = f.bot ? [f.bot.is_attacker, f.bot.is_threat] : [];
  if (f.bot && botFlags.every((flag) => flag.value === 'unknown')) gaps.push('bot status unknown');
  const type = f.scraping?.visitor_type?.trim().toLowerCase() ?? '';
  if (f.scraping && f.scraping.score === undefined && (type === '' || type === 'unknown'))
    gaps.push('scraping status unknown');
  if (f.vpn && f.vpn.vpn.value === 'unknown') gaps.push('VPN status unknown');
  return [...new Set(gaps)];
}

/**
 * Threat: any high reason. Suspicious: any other reason. Human: no reason, and
 * both the bot status and the scraping status actually answered. Unknown:
 * no reason, and not enough answers to call the visitor human.
 */
export function judge(facts: SecurityFacts, options: VerdictOptions = DEFAULT_VERDICT_OPTIONS): Verdict {
  const reasons: Reason[] = [];
  for (const rule of RULES) {
    const text = rule.reason(facts, options);
    if (text) reasons.push({ rule: rule.id, severity: rule.severity, text });
  }
  const gaps = gapsOf(facts);
  if (reasons.length > 0) {
    const severity = reasons.reduce<Severity>((top, r) => (RANK[r.severity] > RANK[top] ? r.severity : top), 'low');
    return { name: severity === 'high' ? 'Threat' : 'Suspicious', severity, reasons, gaps };
  }
  const botKnown =
    facts.bot !== undefined && [facts.bot.is_attacker, facts.bot.is_threat].some((f) => f.value !== 'unknown');
  const scrapingKnown =
    facts.scraping !== undefined &&
    (facts.scraping.score !== undefined || facts.scraping.visitor_type?.trim().toLowerCase() === 'human');
  return { name: botKnown && scrapingKnown ? 'Human' : 'Unknown', reasons, gaps };
}

/** The facts a subscription looks at: the checks it did not choose are left out. */
export function onlyChecks(facts: SecurityFacts, checks: readonly AlertCheck[]): SecurityFacts {
  const keep = new Set<string>(checks);
  const unavailable = Object.fromEntries(Object.entries(facts.unavailable ?? {}).filter(([check]) => keep.has(check)));
  return {
    bot: keep.has('bot') ? facts.bot : undefined,
    scraping: keep.has('scraping') ? facts.scraping : undefined,
    vpn: keep.has('vpn') ? facts.vpn : undefined,
    extensions: keep.has('extensions') ? facts.extensions : undefined,
    unavailable,
  };
}

export function severityRank(severity: Severity | undefined): number {
  return severity === undefined ? 0 : RANK[severity];
}
