/**
 * A feature plugs into the app through one definition (its folder's index.ts). What it says
 * of itself before it is plugged: its slash commands and `/traffic` words with their help
 * (the help, the manifest's hints and the sandbox's suggestions are made from them), its
 * settings (a slice of the environment), its delivery subjects, its tables (migrations, and those adoption covers) and its
 * repositories. What it needs: the platform, and what features before it give. What it gives
 * once plugged: its service, its listeners, the runner of its `/traffic` words, its jobs,
 * prunes and readiness checks, and its metrics (made through the platform's registry).
 * compose.ts walks the list.
 */
import type { CustomRoute } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { z } from 'zod';
import type { AnySubject } from './deliveries/subject.js';
import type { Logger } from './log.js';
import type { Tenant } from './tenancy/tenants.js';
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

/** A slash command of a feature's own: the manifest's entry, and its help topic (the name without the slash). */
export interface SlashCommand {
  command: `/${string}`;
  description: string;
  usage: string;
  help?: readonly string[];
}

/** A feature's `/traffic <word> …` words: the words that start it, what follows them, and its help topic. */
export interface TrafficWords {
  words: readonly [string, ...string[]];
  usage: string;
  help: readonly string[];
}

/** A `/traffic <word> …` sub-command: its words, and what runs it. */
export interface TrafficSubcommand extends TrafficWords {
  run: Subcommand;
}

/** What the features say of their commands before they are plugged: for the help, the manifest and the sandbox. */
export interface CommandCatalog {
  subcommands: readonly TrafficWords[];
  commands: readonly SlashCommand[];
  /** The help of each `/traffic` word (by its first word) and slash command (by its name), by topic. */
  help: Readonly<Record<string, readonly string[]>>;
}

/** Every feature's `/traffic` sub-commands (with what runs them) and slash commands, the help of each, and their agent tools. */
export interface CommandTable extends CommandCatalog {
  subcommands: readonly TrafficSubcommand[];
  tools: readonly AgentTool[];
}

/** Who asks an agent tool, as Lookout authenticated them: a person in a workspace. */
export interface AgentCaller {
  team: string;
  enterprise?: string;
  user: string;
  /** How the call came: signed by Slack (Slackbot), or with a person's bearer token. */
  via: 'slack' | 'token';
  /** The workspace's tenant (its analytics account, directory and access rules); throws TenantError when it cannot be served. */
  tenant: () => Promise<Tenant>;
  log: Logger;
}

/** A tool's answer: a short text, the figures as its output schema says, and the blocks Lookout would post (for Slackbot). */
export interface AgentAnswer {
  text: string;
  structured: Record<string, unknown>;
  blocks?: readonly KnownBlock[];
}

/** A refusal or a problem the agent can read and repeat to the person, with what to do instead. */
export class AgentRefusal extends Error {
  override readonly name = 'AgentRefusal';
}

/** A read-only tool a feature gives agents (Slackbot, or any MCP client): one thing, done well. */
export interface AgentTool {
  name: string;
  title: string;
  /** What it answers and when to use it, for the agent choosing a tool. */
  description: string;
  /** Its arguments, each with a description an agent can act on. */
  input: z.ZodRawShape;
  /** Its answer's figures (`structured`). */
  output: z.ZodRawShape;
  run(args: Record<string, unknown>, caller: AgentCaller): Promise<AgentAnswer>;
}

/**
 * A tool's `input` and `output`, built at their first read (an agent's first call): a deployment
 * no agent calls never holds them. Read them through getters; spreading would build them.
 */
export function toolSchemas<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  build: () => { input: I; output: O },
): { readonly input: I; readonly output: O } {
  let built: { input: I; output: O } | undefined;
  return {
    get input() {
      return (built ??= build()).input;
    },
    get output() {
      return (built ??= build()).output;
    },
  };
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
  /** What runs its `/traffic` words (the definition's `traffic`). */
  traffic?: Subcommand;
  /** Tools it gives agents (the MCP server serves every feature's). */
  tools?: readonly AgentTool[];
  /** HTTP routes it serves on the Slack port, beside Slack's own (Bolt's custom routes). */
  http?: readonly CustomRoute[];
  jobs?: readonly Job[];
  /** Tables of its own that only grow. */
  prunes?: readonly Prune[];
  /** Readiness checks (/readyz), by name. */
  checks?: Readonly<Record<string, () => Promise<unknown>>>;
  /** Stopped after its jobs, before the platform closes. */
  stop?(): Promise<void>;
}

type Gives<Name> = Name extends keyof Provided ? Provided[Name] : undefined;

/** A feature's settings: a zod object whose keys are the environment variables only it reads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SettingsSlice = z.ZodObject<any>;

/** The slice of a feature without settings of its own. */
export type NoSettings = z.ZodObject<Record<never, never>>;

/**
 * A feature. `Ctx` is what the app hands every feature (the platform and the platform's
 * settings); `needs` names the features whose gifts it takes, plugged before it in the list;
 * `settings` declares its own variables, whose values `plug` is handed.
 */
export interface Feature<
  Ctx,
  Name extends string = string,
  Needs extends string = never,
  Repos extends object = object,
  Slice extends SettingsSlice = NoSettings,
> {
  name: Name;
  needs?: readonly Needs[];
  /** Its slash commands of its own. */
  commands?: readonly SlashCommand[];
  /** Its `/traffic` words (the plugged feature's `traffic` runs them). */
  traffic?: TrafficWords;
  /** Its settings: environment variables by name, with what each accepts and its default (a getter making it when read). */
  settings?: Slice;
  /** What its deliveries are about (static: the worker checks them before any feature is plugged). */
  subjects?: readonly AnySubject[];
  /** Its SQL migrations' folder: files numbered in one sequence with the platform's and every feature's. */
  migrations?: URL;
  /** Its tables whose rows from before workspaces were told apart carry team '' (adopted by that workspace at start). */
  unowned?: readonly string[];
  /** Its repositories over a store (tests and tools reach them through the app's store too). */
  repos?(db: Queryable): Repos;
  plug(
    ctx: Ctx,
    needs: Pick<Provided, Needs & keyof Provided>,
    repos: Repos,
    settings: z.output<Slice>,
  ): Plugged<Gives<Name>>;
}

/** Any feature, for lists. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFeature<Ctx> = Feature<Ctx, string, any, any, any>;

/**
 * Plugs the features in their order: each gets what those before it gave, and its own
 * settings (picked from `settings` by its slice's keys). A need that no earlier feature gave,
 * or a name given twice, stops the app with a clear error.
 */
export function plugAll<Ctx>(
  features: readonly AnyFeature<Ctx>[],
  ctx: Ctx,
  reposOf: (feature: AnyFeature<Ctx>) => object,
  settings: Readonly<Record<string, unknown>> = {},
): { plugged: Plugged<unknown>[]; given: Partial<Provided> } {
  const given: Record<string, unknown> = {};
  const plugged: Plugged<unknown>[] = [];
  for (const feature of features) {
    if (feature.name in given) throw new Error(`feature '${feature.name}' is in the list twice`);
    const missing = (feature.needs ?? []).filter((n: string) => !(n in given));
    if (missing.length > 0)
      throw new Error(`feature '${feature.name}' needs ${missing.join(', ')}: put it after them in the list`);
    const needs = Object.fromEntries((feature.needs ?? []).map((n: string) => [n, given[n]]));
    const slice = feature.settings as { shape: object } | undefined;
    const own = Object.fromEntries(Object.keys(slice?.shape ?? {}).map((key) => [key, settings[key]]));
    const p = feature.plug(ctx, needs, reposOf(feature), own) as Plugged<unknown>;
    given[feature.name] = p.gives;
    plugged.push(p);
  }
  return { plugged, given: given };
}

/** What these features say of their commands; a word or command claimed twice stops the app. */
export function commandCatalog(
  features: readonly { traffic?: TrafficWords; commands?: readonly SlashCommand[] }[],
): CommandCatalog {
  const subcommands = features.flatMap((f) => (f.traffic ? [f.traffic] : []));
  const commands = features.flatMap((f) => f.commands ?? []);
  const claims = [...subcommands.flatMap((s) => s.words), ...commands.map((c) => c.command)];
  const twice = claims.find((w, i) => claims.indexOf(w) !== i);
  if (twice) throw new Error(`'${twice}' is claimed by two features`);
  return {
    subcommands,
    commands,
    help: Object.fromEntries([
      ...subcommands.map((s) => [s.words[0], s.help] as const),
      ...commands.flatMap((c) => (c.help ? [[c.command.slice(1), c.help] as const] : [])),
    ]),
  };
}

/** The command table of the features plugged (`plugged[i]` is `features[i]`'s). */
export function commandTable<Ctx>(
  features: readonly AnyFeature<Ctx>[],
  plugged: readonly Plugged<unknown>[],
): CommandTable {
  const catalog = commandCatalog(features);
  const subcommands = features.flatMap((f, i): TrafficSubcommand[] => {
    if (!f.traffic) return [];
    const run = plugged[i]?.traffic;
    if (!run) throw new Error(`feature '${f.name}' has /traffic words but nothing runs them`);
    return [{ ...f.traffic, run }];
  });
  const tools = plugged.flatMap((p) => p.tools ?? []);
  const names = tools.map((t) => t.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`the agent tool '${twice}' is given by two features`);
  return { ...catalog, subcommands, tools };
}

/** `/traffic`'s usage hint (the manifest's, the sandbox's): a report, then every feature's words, then help. */
export function trafficHint(catalog: CommandCatalog): string {
  const report = catalog.commands.find((c) => c.command === '/traffic')?.usage ?? '<report>';
  return [report, ...catalog.subcommands.map((s) => `${s.words[0]} …`), 'help'].join(' | ');
}
