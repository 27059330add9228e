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
  const found = [b.team_id, b.team?.id, b.user?.team_id, b.view?.team_id].find(
    (t): t is string => typeof t === 'string' && t !== '',
  );
  return found ?? '';
}
