import { atLeast, judge, type SecurityFacts, type VerdictOptions } from '../../kernel/verdict.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import type { VisitorCheckRepo } from './repos/visitor-checks.js';

/** Whose visitors: a workspace and the analytics account its threat scan reads. */
export type FlaggedOf = Pick<Tenant, 'team' | 'account'>;

/** What digests and watches may ask of the threat scan's verdicts about one workspace's visitors. */
export interface Verdicts {
  /**
   * Which of these visitors the threat scan has judged, and which of those it flagged
   * (a severity of medium or more), from its stored lookups; undefined while it is off.
   */
  judged(
    tenant: FlaggedOf,
    visitorIds: readonly string[],
  ): Promise<{ checked: Set<string>; flagged: Set<string> } | undefined>;
  /** The threat scan's verdict on each of these visitors it has judged and flagged: its name and reasons. */
  verdicts(tenant: FlaggedOf, visitorIds: readonly string[]): Promise<Map<string, { name: string; reasons: string[] }>>;
}

export interface VerdictDeps {
  visitorChecks: VisitorCheckRepo;
  /** Whether the scan is on for the workspace. */
  scanning(team: string): Promise<boolean>;
  /** How stored lookups are judged (the scraping score that counts). */
  verdict?: VerdictOptions;
}

/** The threat scan's verdicts, judged from its stored lookups. */
export class StoredVerdicts implements Verdicts {
  constructor(private readonly deps: VerdictDeps) {}

  private async storedFacts(tenant: FlaggedOf, visitorIds: readonly string[]): Promise<Map<string, SecurityFacts>> {
    const stored = await this.deps.visitorChecks.getFresh(tenant.account, visitorIds, new Date(0));
    const out = new Map<string, SecurityFacts>();
    for (const [id, entry] of stored) {
      const facts = (entry.facts as { facts?: SecurityFacts } | null)?.facts;
      if (facts) out.set(id, facts);
    }
    return out;
  }

  async judged(
    tenant: FlaggedOf,
    visitorIds: readonly string[],
  ): Promise<{ checked: Set<string>; flagged: Set<string> } | undefined> {
    if (!(await this.deps.scanning(tenant.team))) return undefined;
    const checked = new Set<string>();
    const flagged = new Set<string>();
    for (const [id, facts] of await this.storedFacts(tenant, visitorIds)) {
      checked.add(id);
      if (atLeast(judge(facts, this.deps.verdict).severity, 'medium')) flagged.add(id);
    }
    return { checked, flagged };
  }

  async verdicts(
    tenant: FlaggedOf,
    visitorIds: readonly string[],
  ): Promise<Map<string, { name: string; reasons: string[] }>> {
    const out = new Map<string, { name: string; reasons: string[] }>();
    for (const [id, facts] of await this.storedFacts(tenant, visitorIds)) {
      const v = judge(facts, this.deps.verdict);
      if (atLeast(v.severity, 'medium')) out.set(id, { name: v.name, reasons: v.reasons.map((r) => r.text) });
    }
    return out;
  }
}
