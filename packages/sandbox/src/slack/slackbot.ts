/**
 * Slackbot's side of an app's MCP server, for the page's Slackbot panel: Slackbot is an MCP
 * client of the apps that list a server in their manifest (`mcp_servers`, scope `mcp:connect`,
 * https://docs.slack.dev/ai/slackbot-mcp-client). With Slack identity auth it signs each request
 * as Slack signs any request to the app (`x-slack-signature`, v0 HMAC over `v0:<ts>:<body>`) and
 * puts who asks in the call's `_meta.slack` (`user_id`, `team_id`, and `enterprise_id` in an
 * organisation), as the sample app slack-samples/bolt-js-examples
 * (ai/slackbot-mcp-client/slack-identity) reads it. A tool's answer may carry Block Kit in
 * `_meta.slack.blocks` (ai/slackbot-mcp-client/rich-responses/block-kit), which Slackbot draws.
 * There is no language model here: the person picks the tool and its arguments.
 *
 *   GET  /ui/slackbot/list?user   the app's tools (`tools/list`) and the MCP URL they came from
 *   POST /ui/slackbot/call        { user, tool, arguments }: `tools/call`, signed, as that person;
 *                                 answers { text, blocks, is_error, problems }
 *
 * The app's MCP server is at its base URL + /mcp (its request URL's origin).
 */
import type { IncomingMessage } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { validateBlocks } from '@lookout/slack-rules/validate';
import { z } from 'zod';
import { sendJson } from './http-util.js';
import type { RouteContext, RouteHandler, Router } from './router.js';
import type { SlackDriver } from './driver.js';
import type { Json } from './types.js';
import type { SlackUser } from './workspace.js';
import { id, jsonBody, UiError } from './ui-requests.js';

/** What the panel gets of a tool (the rest of `tools/list` stays with the server). */
export interface SlackbotTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Json;
}

/** A tool's answer as Slackbot shows it. */
export interface SlackbotAnswer {
  /** The answer's text content, joined. */
  text: string;
  /** `_meta.slack.blocks`, when the tool gave Block Kit. */
  blocks: Json[] | null;
  is_error: boolean;
  /** Where the blocks break Slack's rules for a message (the surface Slackbot draws them on, presumably). */
  problems: string[];
}

const callBody = z.object({
  user: id,
  tool: z.string().min(1).max(128),
  arguments: z.record(z.string().max(128), z.unknown()).default({}),
});

/** The app's MCP URL: its base (the request URL's origin) + /mcp. */
export function mcpUrlOf(requestUrl: string): URL {
  return new URL('/mcp', requestUrl);
}

/**
 * A fetch that signs every request as Slack does: the exact body that goes on the wire, or the
 * empty string for a body-less one (the SDK's optional GET of its event stream).
 */
export function slackSignedFetch(sign: (body: string) => Record<string, string>): typeof fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : '';
    for (const [name, value] of Object.entries(sign(body))) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}

/** An MCP client of the app at `url`, signing as Slack does; the SDK is loaded at the first (the sandbox starts without it). */
async function connect(driver: SlackDriver, url: URL): Promise<Client> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'slackbot', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, { fetch: slackSignedFetch((body) => ({ ...driver.sign(body) })) }),
  );
  return client;
}

/**
 * One MCP client per workspace and MCP URL, kept between calls: each request then has its own
 * JSON-RPC id, so no two signed bodies are the same (an app refuses a replayed request).
 */
class Clients {
  private readonly open = new Map<string, Promise<Client>>();

  async get(driver: SlackDriver, url: URL): Promise<Client> {
    const key = `${driver.workspace.team.id} ${url.href}`;
    let client = this.open.get(key);
    if (!client) {
      client = connect(driver, url);
      this.open.set(key, client);
      client.catch(() => this.open.delete(key));
    }
    return client;
  }

  /** Forgets a client that failed: the next call connects again. */
  async drop(driver: SlackDriver, url: URL): Promise<void> {
    const key = `${driver.workspace.team.id} ${url.href}`;
    const client = this.open.get(key);
    this.open.delete(key);
    await client?.then((c) => c.close()).catch(() => undefined);
  }
}

/** `_meta.slack` of a call: who asks, in which workspace (and organisation). */
export function slackIdentity(driver: SlackDriver, user: SlackUser): Json {
  const { team } = driver.workspace;
  return { user_id: user.id, team_id: team.id, ...(team.enterprise ? { enterprise_id: team.enterprise.id } : {}) };
}

/** A `tools/call` result as Slackbot shows it: the blocks if any, else the text; an isError result is an error. */
export function answerOf(result: Json): SlackbotAnswer {
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  const text = content
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
  const slack = (result._meta as Json | undefined)?.slack as Json | undefined;
  const blocks = Array.isArray(slack?.blocks) ? (slack.blocks as Json[]) : null;
  const checked = blocks ? validateBlocks(blocks, 'message') : { ok: true as const };
  return {
    text,
    blocks,
    is_error: result.isError === true,
    problems: checked.ok ? [] : checked.reasons,
  };
}

function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

/** Adds the panel's endpoints to the offline Slack's router. */
export function mountSlackbotRoutes(router: Router): void {
  const clients = new Clients();

  /** The workspace (`?team=`), the person, and the app's MCP URL; Slackbot reaches only an installed app. */
  const where = (ctx: RouteContext, userRef: string | null | undefined) => {
    let driver: SlackDriver;
    try {
      driver = ctx.slack.team(ctx.url.searchParams.get('team') ?? ctx.slack.workspace.team.id);
    } catch {
      throw new UiError(400, 'team_not_found', `no workspace "${ctx.url.searchParams.get('team') ?? ''}"`);
    }
    const ws = driver.workspace;
    const user = ws.user(userRef ?? '');
    if (!user || user.is_bot) throw new UiError(400, 'unknown_user', `no person "${userRef ?? ''}" in this workspace`);
    if (!ctx.slack.oauth.installed(ws.team.id))
      throw new UiError(400, 'not_installed', `Lookout is not installed in ${ws.team.name}`);
    const requestUrl = ctx.slack.appUrl;
    if (!requestUrl)
      throw new UiError(400, 'no_app_url', 'the app has no request URL: Slackbot reaches an MCP server over HTTP');
    return { driver, user, url: mcpUrlOf(requestUrl) };
  };

  /** Runs an MCP request; a failure of the protocol (the app unreachable, a 401, a bad answer) is a 502. */
  const ask = async <T>(driver: SlackDriver, url: URL, request: (client: Client) => Promise<T>): Promise<T> => {
    try {
      return await request(await clients.get(driver, url));
    } catch (error) {
      await clients.drop(driver, url);
      throw new UiError(502, 'mcp_failed', `${url.href}: ${describeFailure(error)}`);
    }
  };

  const json =
    (handler: (req: IncomingMessage, ctx: RouteContext) => Promise<Json>): RouteHandler =>
    async (req, res, ctx) => {
      try {
        sendJson(res, 200, { ok: true, ...(await handler(req, ctx)) }, { 'cache-control': 'no-store' });
      } catch (error) {
        if (!(error instanceof UiError)) throw error;
        sendJson(res, error.status, {
          ok: false,
          error: error.code,
          ...(error.detail ? { detail: error.detail } : {}),
        });
      }
    };

  router
    .add(
      'GET',
      '/ui/slackbot/list',
      json(async (_req, ctx) => {
        const { driver, url } = where(ctx, ctx.url.searchParams.get('user'));
        const listed = await ask(driver, url, (client) => client.listTools());
        const tools: SlackbotTool[] = listed.tools.map((t) => ({
          name: t.name,
          ...(t.title ? { title: t.title } : {}),
          ...(t.description ? { description: t.description } : {}),
          inputSchema: t.inputSchema,
        }));
        return { url: url.href, tools };
      }),
    )
    .add(
      'POST',
      '/ui/slackbot/call',
      json(async (req, ctx) => {
        const body = await jsonBody(req, callBody);
        const { driver, user, url } = where(ctx, body.user);
        const result = await ask(driver, url, (client) =>
          client.callTool({
            name: body.tool,
            arguments: body.arguments,
            _meta: { slack: slackIdentity(driver, user) },
          }),
        );
        return { answer: { ...answerOf(result) } };
      }),
    );
}
