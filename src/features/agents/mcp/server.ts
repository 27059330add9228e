/**
 * One MCP server per request (stateless), serving every feature's tools. What does not depend
 * on the request is built once (toolboxOf): each tool's listing, its JSON Schemas converted from
 * zod, and the zod objects its arguments and figures are checked with. Each call: who asks (a
 * token's person, or the person a Slack-signed call names, in a workspace Lookout serves), the
 * tool run on their behalf, its answer (for Slackbot with the blocks Lookout would post, fitted
 * to Slack's rules for a message), logged and counted. A refusal reaches the agent in its own
 * words; any other failure is logged and reaches it as a generic text.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type {
  CallToolRequestSchema,
  CallToolResult,
  ListToolsRequestSchema,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Counter } from 'prom-client';
import { z } from 'zod';
import { forPerson } from '../../../platform/api/budget.js';
import { AgentRefusal, type AgentCaller, type AgentTool } from '../../../platform/feature.js';
import type { Logger } from '../../../platform/log.js';
import type { PreflightGate } from '../../../platform/slack/preflight-gate.js';
import { TenantError, type Tenant } from '../../../platform/tenancy/tenants.js';
import { identityOf, serves, type Entry, type Gate, type Identity } from './caller.js';

/** The SDK's parts /mcp uses, loaded with the first request. */
export interface Sdk {
  Server: typeof Server;
  Transport: typeof StreamableHTTPServerTransport;
  ListTools: typeof ListToolsRequestSchema;
  CallTool: typeof CallToolRequestSchema;
  /** One for every server (each would otherwise build its own Ajv); no tool asks the client for input. */
  validator: jsonSchemaValidator;
}

export interface ServerDeps {
  /** Every feature's tools (known once every feature is plugged). */
  tools: () => readonly AgentTool[];
  gate: Gate;
  tenantOf: (team: string) => Promise<Tenant>;
  preflight: PreflightGate;
  calls: Counter<'tool' | 'outcome'>;
  log: Logger;
}

type Outcome = 'ok' | 'refused' | 'error';

const SAID = {
  anonymous:
    'Lookout could not tell who is asking: the call came without a Slack person and workspace. Ask from Slack again.',
  notInstalled:
    'Lookout is not installed in this workspace (or it was removed), so it cannot answer here. A workspace admin can install it again from Lookout’s install page.',
  failed:
    'Lookout could not answer this just now. Try again in a minute; if it keeps happening, tell whoever runs Lookout.',
} as const;

const refusal = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

interface Served {
  tool: AgentTool;
  input: z.ZodObject;
  output: z.ZodObject;
}

/** The tools as served: their listing for tools/list, and each by name for tools/call. */
export interface Toolbox {
  listed: Tool[];
  byName: ReadonlyMap<string, Served>;
}

/** What a listed schema leaves out, as saying nothing an agent acts on. */
const UNSAID: Record<string, (value: unknown, io: 'input' | 'output') => boolean> = {
  // Every JSON key is a string.
  propertyNames: (value) => (value as { type?: unknown }).type === 'string',
  // zod's bounds of a safe integer: no id comes near them.
  minimum: (value) => value === Number.MIN_SAFE_INTEGER,
  maximum: (value) => value === Number.MAX_SAFE_INTEGER,
  // A string argument's length bounds: checked at each call, and no agent's argument nears them.
  minLength: (_, io) => io === 'input',
  maxLength: (_, io) => io === 'input',
  // An answer's fields are the ones listed, and its objects say so by their properties.
  additionalProperties: (value, io) => io === 'output' && value === false,
};

/** A nested object of an answer: its `type` goes unsaid (its properties say it). */
const isAnswerObject = (key: string, value: unknown, io: 'input' | 'output') =>
  io === 'output' && key !== '' && (value as { type?: unknown } | null)?.type === 'object';

/**
 * A JSON Schema as tools/list gives it: without `$schema` (MCP reads a schema without one as
 * 2020-12, which these are), nor what UNSAID leaves out.
 */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io });
  return JSON.parse(JSON.stringify(json), (key, value: unknown) => {
    if (UNSAID[key]?.(value, io)) return undefined;
    if (isAnswerObject(key, value, io) && 'properties' in (value as object)) {
      const { type: _, ...rest } = value as Record<string, unknown>;
      return rest;
    }
    return value;
  }) as Tool['inputSchema'];
}

export function toolboxOf(tools: readonly AgentTool[]): Toolbox {
  const byName = new Map<string, Served>();
  const listed = tools.map((tool): Tool => {
    const served = { tool, input: z.object(tool.input), output: z.object(tool.output) };
    byName.set(tool.name, served);
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(served.input, 'input'),
      outputSchema: jsonSchemaOf(served.output, 'output'),
      annotations: { readOnlyHint: true },
      _meta: { slack: { supportsBlockKit: true } },
    };
  });
  return { listed, byName };
}

/** A new server for one request, with every tool, answering as `entry` allows. */
export function buildServer(sdk: Sdk, deps: ServerDeps, toolbox: Toolbox, entry: Entry): Server {
  const server = new sdk.Server(
    { name: 'lookout', version: '1' },
    { capabilities: { tools: {} }, jsonSchemaValidator: sdk.validator },
  );
  server.setRequestHandler(sdk.ListTools, () => ({ tools: toolbox.listed }));
  server.setRequestHandler(sdk.CallTool, async ({ params }) => {
    const served = toolbox.byName.get(params.name);
    if (!served) return refusal(`There is no tool ${params.name}: tools/list names them.`);
    const args = served.input.safeParse(params.arguments ?? {});
    if (!args.success) return refusal(`Invalid arguments for tool ${params.name}: ${z.prettifyError(args.error)}`);
    return call(deps, entry, served, args.data, params._meta);
  });
  return server;
}

async function call(
  deps: ServerDeps,
  entry: Entry,
  { tool, output }: Served,
  args: Record<string, unknown>,
  meta: unknown,
): Promise<CallToolResult> {
  const started = performance.now();
  // A token's person; a Slack-signed call's own (`_meta.slack` is read only when Slack signed it).
  const who: Identity | undefined = entry.via === 'token' ? entry.identity : identityOf(meta);
  let outcome: Outcome = 'ok';
  let requests = 0;
  const done = (result: CallToolResult): CallToolResult => {
    deps.calls.inc({ tool: tool.name, outcome });
    deps.log.info(
      {
        tool: tool.name,
        team: who?.team,
        user: who?.user,
        via: entry.via,
        outcome,
        apiRequests: requests,
        ms: Math.round(performance.now() - started),
      },
      'agent tool call',
    );
    return result;
  };
  if (!who) {
    outcome = 'refused';
    return done(refusal(SAID.anonymous));
  }
  try {
    if (entry.via === 'slack' && !(await serves(deps.gate, who))) {
      outcome = 'refused';
      return done(refusal(SAID.notInstalled));
    }
    const caller: AgentCaller = {
      ...who,
      via: entry.via,
      tenant: () => deps.tenantOf(who.team),
      log: deps.log.child({ tool: tool.name, team: who.team, user: who.user }),
    };
    const ran = await forPerson(() => tool.run(args, caller));
    requests = ran.requests;
    const answer = ran.value;
    const checked = output.safeParse(answer.structured);
    if (!checked.success) throw new Error(`its figures break its output schema: ${z.prettifyError(checked.error)}`);
    let blocks: unknown[] | undefined;
    if (entry.via === 'slack' && answer.blocks?.length) {
      // Slackbot shows them as a message: fitted to Slack's rules for one, or left out.
      const fitted = deps.preflight.message('mcp', { text: answer.text, blocks: [...answer.blocks] });
      blocks = fitted.blocks?.length ? [...fitted.blocks] : undefined;
    }
    return done({
      content: [{ type: 'text', text: answer.text }],
      structuredContent: answer.structured,
      ...(blocks ? { _meta: { slack: { blocks } } } : {}),
    });
  } catch (error) {
    if (error instanceof AgentRefusal || error instanceof TenantError) {
      outcome = 'refused';
      return done(refusal(error.message));
    }
    outcome = 'error';
    deps.log.error(
      { tool: tool.name, team: who.team, err: error instanceof Error ? error.message : String(error) },
      'an agent tool failed',
    );
    return done(refusal(SAID.failed));
  }
}
