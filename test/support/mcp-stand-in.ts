/**
 * A stand-in for an app's MCP server, until Lookout's own `/mcp` is merged: the SDK's McpServer
 * on a port, stateless (one server and transport per request), that takes only requests signed
 * with the app's signing secret (within 5 minutes, each once) and answers as the real tools are
 * meant to: `report` with rows, blocks and a short text; `setup` with text only; `trend` with a
 * refusal (isError). It records each call's arguments and `_meta.slack`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { verifySignature } from '@lookout/sandbox/slack';
import { z } from 'zod';

export interface StandInCall {
  tool: string;
  args: Record<string, unknown>;
  slack: unknown;
}

export interface McpStandIn {
  /** Its base URL: the MCP server is at `${base}/mcp`, the (unused) request URL at `${base}/slack/events`. */
  base: string;
  calls: StandInCall[];
  /** Requests refused for their signature. */
  refused: number;
  close(): Promise<void>;
}

const ROWS: Record<string, [string, number][]> = {
  sources: [
    ['google', 1200],
    ['direct', 800],
    ['news.ycombinator.com', 300],
    ['duckduckgo', 90],
  ],
  pages: [
    ['/', 2100],
    ['/pricing', 640],
    ['/blog/launch', 410],
    ['/docs', 280],
  ],
};

function buildServer(calls: StandInCall[]): McpServer {
  const server = new McpServer({ name: 'lookout-stand-in', version: '0.0.0' });
  const record = (tool: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined) =>
    calls.push({ tool, args, slack: meta?.slack });
  server.registerTool(
    'report',
    {
      title: 'Traffic report',
      description: 'Rows and totals of one report for a period.',
      inputSchema: {
        report: z.enum(['sources', 'pages']).describe('Which report'),
        range: z.string().default('last7d').describe('A period: today, last7d, last30d…'),
        top: z.number().int().min(1).max(50).default(10).describe('How many rows'),
      },
      outputSchema: { period: z.string(), rows: z.array(z.object({ name: z.string(), visits: z.number() })) },
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { slack: { supportsBlockKit: true } },
    },
    (args, extra) => {
      record('report', args, extra._meta);
      const rows = (ROWS[args.report] ?? []).slice(0, args.top).map(([name, visits]) => ({ name, visits }));
      const title = `${args.report === 'pages' ? 'Pages' : 'Sources'}, ${args.range}`;
      return {
        content: [{ type: 'text', text: `${title}: ${rows.map((r) => `${r.name} ${r.visits}`).join(', ')}` }],
        structuredContent: { period: args.range, rows },
        _meta: {
          slack: {
            blocks: [
              { type: 'header', text: { type: 'plain_text', text: title } },
              {
                type: 'table',
                rows: [
                  [
                    { type: 'raw_text', text: 'Name' },
                    { type: 'raw_text', text: 'Visits' },
                  ],
                  ...rows.map((r) => [
                    { type: 'raw_text', text: r.name },
                    { type: 'raw_text', text: String(r.visits) },
                  ]),
                ],
              },
            ],
          },
        },
      };
    },
  );
  server.registerTool(
    'setup',
    { description: 'What is set up in channels you are in.', annotations: { readOnlyHint: true } },
    (extra) => {
      record('setup', {}, extra._meta);
      return { content: [{ type: 'text', text: 'No watches, digests or threat alerts in your channels.' }] };
    },
  );
  server.registerTool(
    'trend',
    {
      description: 'A report against the previous period.',
      inputSchema: { report: z.enum(['sources', 'pages']).optional().describe('Which report') },
      annotations: { readOnlyHint: true },
    },
    (args, extra) => {
      record('trend', args, extra._meta);
      return {
        isError: true,
        content: [{ type: 'text', text: "not connected: a workspace admin connects it from Lookout's Home" }],
      };
    },
  );
  return server;
}

const UNAUTHORIZED = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null });

export async function startMcpStandIn(signingSecret: string): Promise<McpStandIn> {
  const calls: StandInCall[] = [];
  const seen = new Set<string>();
  const state = { refused: 0 };
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.url !== '/mcp') return res.writeHead(404).end();
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null }),
        );
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const signature = req.headers['x-slack-signature'];
      const timestamp = req.headers['x-slack-request-timestamp'];
      const once = `${String(timestamp)}:${String(signature)}`;
      if (
        typeof signature !== 'string' ||
        typeof timestamp !== 'string' ||
        seen.has(once) ||
        !verifySignature(signingSecret, raw, { signature, timestamp })
      ) {
        state.refused++;
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end(UNAUTHORIZED);
      }
      seen.add(once);
      const mcp = buildServer(calls);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, JSON.parse(raw));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    calls,
    get refused() {
      return state.refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
