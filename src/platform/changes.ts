/** Whom a change concerns: those people, the people whose digests or watches post in those channels of a workspace, or everyone. */
export type ChangeScope = { users: readonly string[] } | { team: string; channels: readonly string[] } | 'everyone';

/** Told of a change someone may be looking at (App Home is published again for them). */
export type Changed = (scope: ChangeScope) => void;

/** Where changes are announced; App Home listens (features that change something are plugged before it). */
export class ChangeBus {
  private readonly listeners: Changed[] = [];

  /** Tells every listener of the change. */
  readonly changed: Changed = (scope) => {
    for (const listener of this.listeners) listener(scope);
  };

  listen(listener: Changed): void {
    this.listeners.push(listener);
  }
}
