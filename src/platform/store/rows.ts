/**
 * A row as the database returns it (snake_case, NULL) → the record a repository
 * returns (camelCase, undefined). The store's contract tests check each repository's
 * records against both drivers.
 */
export function fromRow<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = value ?? undefined;
  }
  return out as T;
}
