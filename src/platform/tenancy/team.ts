/**
 * The workspace a request comes from, as Slack's signed body says: a command's `team_id`, an
 * interaction's `team.id` (its `user.team_id` in an org-wide app, where `team` may be null), an
 * event's `team_id`. Never from anything a person typed or a button carried.
 */
export function teamOf(body: unknown): string {
  const b = (body ?? {}) as {
    team_id?: unknown;
    team?: { id?: unknown } | null;
    user?: { team_id?: unknown };
    view?: { team_id?: unknown };
  };
  const found = [b.team_id, b.team?.id, b.user?.team_id, b.view?.team_id].find(isId);
  return found ?? '';
}

/** A workspace, and its organisation (Enterprise Grid) where it has one. */
export interface Workspace {
  team: string;
  enterprise?: string;
}

/**
 * Who a request is from, every field of Slack's body that names a workspace or an organisation read
 * together: its workspace, its organisation, and whether Lookout was installed for the whole
 * organisation; or, when those fields disagree, why (Slack never sends such a request; Bolt and
 * Lookout would each read a different workspace from it).
 */
export type Claim = (Workspace & { orgWide: boolean }) | { problem: string };

interface Body {
  team_id?: unknown;
  enterprise_id?: unknown;
  is_enterprise_install?: unknown;
  command?: unknown;
  team?: { id?: unknown; enterprise_id?: unknown } | null;
  enterprise?: { id?: unknown } | null;
  view?: { team_id?: unknown; app_installed_team_id?: unknown };
  authorizations?: { team_id?: unknown; enterprise_id?: unknown; is_enterprise_install?: unknown }[];
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** The first of `named` given, when every one given is the same; `false` when two differ. */
function agreed(...named: unknown[]): string | undefined | false {
  const given = [...new Set(named.filter(isId))];
  return given.length > 1 ? false : given[0];
}

export function claimOf(body: unknown): Claim {
  const b = (body ?? {}) as Body;
  const team = teamOf(body);
  if (!team) return { problem: 'it names no workspace' };
  const authorization = Array.isArray(b.authorizations) ? b.authorizations[0] : undefined;
  // Bolt reads an event's install from its first authorization, a command's from a string, an interaction's from a boolean.
  const orgWide = authorization
    ? authorization.is_enterprise_install === true
    : b.is_enterprise_install === true || b.is_enterprise_install === 'true';
  const enterprise = agreed(b.enterprise_id, b.enterprise?.id, b.team?.enterprise_id, authorization?.enterprise_id);
  if (enterprise === false) return { problem: 'it names two organisations' };
  if (agreed(b.team_id, b.team?.id, b.view?.team_id) === false) return { problem: 'it names two workspaces' };
  if (authorization && !orgWide && isId(authorization.team_id) && authorization.team_id !== team)
    return { problem: 'it is authorised for another workspace than the one it names' };
  const installedIn = b.view?.app_installed_team_id;
  if (isId(installedIn) && installedIn !== team && !(orgWide && installedIn === enterprise))
    return { problem: 'its view was opened by another workspace’s install' };
  if (orgWide && !enterprise) return { problem: 'it says Lookout is installed for an organisation, and names none' };
  return { team, ...(enterprise ? { enterprise } : {}), orgWide };
}

/** The workspace a request comes from, with its organisation; teamOf's workspace alone when its fields disagree. */
export function workspaceOf(body: unknown): Workspace {
  const claim = claimOf(body);
  if ('problem' in claim) return { team: teamOf(body) };
  return { team: claim.team, ...(claim.enterprise ? { enterprise: claim.enterprise } : {}) };
}
