/**
 * /mcp on the Slack port: MCP over Streamable HTTP, stateless. A POST is read (at most
 * BODY_LIMIT: the SDK's own limit does not apply to a body handed to it), let in or refused
 * (caller.ts) before it is parsed, then served by a server and transport of its own, both
 * closed when the response closes (answered, or the client gone). Anything else is 405.
 * The SDK is loaded with the first POST: an app no agent asks does not carry it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { AgentTool } from '../../../platform/feature.js';
import { readBody } from '../../../platform/slack/guard.js';
import { entryOf, type Gate } from './caller.js';
import type { Sdk, ServerDeps, Toolbox } from './server.js';

export const MCP_PATH = '/mcp';

/** The most a request's body may hold: a tool's arguments are a few short fields. */
export const BODY_LIMIT = 1024 * 1024;

/** JSON-RPC's answer when nothing was parsed (its `id` unknown). */
function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const UNAUTHORIZED =
  'Unauthorized: Lookout answers requests signed by Slack, or with a person’s agent token (Authorization: Bearer) made in Lookout’s App Home.';

export function mcpRoutes(deps: ServerDeps & { gate: Gate }): CustomRoute[] {
  const { log } = deps;
  // The SDK and the server, with the tools' schemas, are loaded with the first request.
  let sdk: Promise<Sdk & { served: typeof import('./server.js') }> | undefined;
  const loadSdk = () =>
    (sdk ??= Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('@modelcontextprotocol/sdk/validation/ajv-provider.js'),
      import('./server.js'),
    ]).then(([server, http, types, ajv, served]) => ({
      Server: server.Server,
      Transport: http.StreamableHTTPServerTransport,
      ListTools: types.ListToolsRequestSchema,
      CallTool: types.CallToolRequestSchema,
      validator: new ajv.AjvJsonSchemaValidator(),
      served,
    })));
  // Built again only if the tools change (they are known once every feature is plugged).
  let toolbox: { of: readonly AgentTool[]; box: Toolbox } | undefined;
  const toolboxNow = (toolboxOf: (tools: readonly AgentTool[]) => Toolbox): Toolbox => {
    const tools = deps.tools();
    if (toolbox?.of !== tools) toolbox = { of: tools, box: toolboxOf(tools) };
    return toolbox.box;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const declared = Number(req.headers['content-length']);
    // Told before it is read, when the client says its size: refused without reading it.
    const raw = declared > BODY_LIMIT ? undefined : await readBody(req, BODY_LIMIT);
    if (!raw) {
      res.shouldKeepAlive = false;
      log.warn({ limit: BODY_LIMIT }, 'an /mcp request refused: its body is too large');
      return rpcError(res, 413, -32600, `Request body over ${BODY_LIMIT} bytes`);
    }
    const body = raw.toString('utf8');
    const entry = await entryOf(deps.gate, req.headers, body);
    if ('refused' in entry) {
      log.warn({ reason: entry.refused }, 'an /mcp request refused: unauthorized');
      return rpcError(res, 401, -32001, UNAUTHORIZED, { 'www-authenticate': 'Bearer realm="lookout"' });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    const loaded = await loadSdk();
    const server = loaded.served.buildServer(loaded, deps, toolboxNow(loaded.served.toolboxOf), entry);
    const transport = new loaded.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  };

  return [
    {
      path: MCP_PATH,
      method: ['POST'],
      handler: (req, res) =>
        void serve(req, res).catch((error: unknown) => {
          log.error({ err: error instanceof Error ? error.message : String(error) }, 'an /mcp request failed');
          rpcError(res, 500, -32603, 'Internal error');
        }),
    },
    {
      path: MCP_PATH,
      method: ['GET', 'DELETE'],
      handler: (_req, res) => rpcError(res, 405, -32000, 'Method not allowed: POST only', { allow: 'POST' }),
    },
  ];
}
