/** Whom a change concerns: those people, the people whose digests or watches post in those channels, or everyone. */
export type ChangeScope = { users: readonly string[] } | { channels: readonly string[] } | 'everyone';

/** Told of a change someone may be looking at (App Home is published again for them). */
export type Changed = (scope: ChangeScope) => void;
