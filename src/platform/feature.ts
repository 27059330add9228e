/**
 * A feature plugs into the app through one definition (its folder's index.ts): what it
 * needs (the platform, and what features before it give), and what it gives the app: its
 * service, its listeners, its `/traffic` sub-commands and help, its delivery subjects, its
 * jobs, its repositories, its prunes and readiness checks. compose.ts walks the list.
 */
import type { AnySubject } from './deliveries/subject.js';
import type { Routes } from './slack/routes.js';
import type { Subcommand } from './slack/subcommand.js';
import type { Queryable } from './store/db.js';
import type { Prune } from './store/housekeeping.js';

/**
 * What features give each other, by feature name: each feature's index.ts adds its entry
 * (`declare module`), and another feature asks for it by that name in its `needs`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Provided {}

/** A `/traffic <word> …` sub-command: the words that start it, what runs it, and its help. */
export interface TrafficSubcommand {
  words: readonly string[];
  run: Subcommand;
  help: readonly string[];
}

/** Every feature's `/traffic` sub-commands, and help of commands of their own (like /visitor), by topic. */
export interface CommandTable {
  subcommands: readonly TrafficSubcommand[];
  help: Readonly<Record<string, readonly string[]>>;
}

/** Work that runs in the background: started once the app listens (unless the app runs without them), stopped on shutdown. */
export interface Job {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** What a plugged feature gives the app. */
export interface Plugged<G> {
  /** What it offers the features after it (Provided[name]). */
  gives: G;
  /** Its listeners; `commands` is the table of every feature's sub-commands (for the one that dispatches them). */
  register?(routes: Routes, commands: CommandTable): void;
  subcommands?: readonly TrafficSubcommand[];
  /** Help topics of commands of its own, by topic. */
  help?: Readonly<Record<string, readonly string[]>>;
  jobs?: readonly Job[];
  /** Tables of its own that only grow. */
  prunes?: readonly Prune[];
  /** Readiness checks (/readyz), by name. */
  checks?: Readonly<Record<string, () => Promise<unknown>>>;
  /** Stopped after its jobs, before the platform closes. */
  stop?(): Promise<void>;
}

type Gives<Name> = Name extends keyof Provided ? Provided[Name] : undefined;

/**
 * A feature. `Ctx` is what the app hands every feature (the platform and the settings);
 * `needs` names the features whose gifts it takes, plugged before it in the list.
 */
export interface Feature<
  Ctx,
  Name extends string = string,
  Needs extends string = never,
  Repos extends object = object,
> {
  name: Name;
  needs?: readonly Needs[];
  /** What its deliveries are about (static: the worker checks them before any feature is plugged). */
  subjects?: readonly AnySubject[];
  /** Its repositories over a store (tests and tools reach them through the app's store too). */
  repos?(db: Queryable): Repos;
  plug(ctx: Ctx, needs: Pick<Provided, Needs & keyof Provided>, repos: Repos): Plugged<Gives<Name>>;
}

/** Any feature, for lists. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFeature<Ctx> = Feature<Ctx, string, any, any>;

/**
 * Plugs the features in their order: each gets what those before it gave. A need that no
 * earlier feature gave, or a name given twice, stops the app with a clear error.
 */
export function plugAll<Ctx>(
  features: readonly AnyFeature<Ctx>[],
  ctx: Ctx,
  reposOf: (feature: AnyFeature<Ctx>) => object,
): { plugged: Plugged<unknown>[]; given: Partial<Provided> } {
  const given: Record<string, unknown> = {};
  const plugged: Plugged<unknown>[] = [];
  for (const feature of features) {
    if (feature.name in given) throw new Error(`feature '${feature.name}' is in the list twice`);
    const missing = (feature.needs ?? []).filter((n: string) => !(n in given));
    if (missing.length > 0)
      throw new Error(`feature '${feature.name}' needs ${missing.join(', ')}: put it after them in the list`);
    const needs = Object.fromEntries((feature.needs ?? []).map((n: string) => [n, given[n]]));
    const p = feature.plug(ctx, needs, reposOf(feature)) as Plugged<unknown>;
    given[feature.name] = p.gives;
    plugged.push(p);
  }
  return { plugged, given: given };
}

/** The sub-command table of what was plugged; a word claimed twice stops the app. */
export function commandTable(plugged: readonly Plugged<unknown>[]): CommandTable {
  const subcommands = plugged.flatMap((p) => p.subcommands ?? []);
  const words = subcommands.flatMap((s) => s.words);
  const twice = words.find((w, i) => words.indexOf(w) !== i);
  if (twice) throw new Error(`the /traffic word '${twice}' is claimed by two features`);
  return {
    subcommands,
    help: Object.assign({}, ...plugged.map((p) => p.help ?? {})) as Record<string, readonly string[]>,
  };
}
