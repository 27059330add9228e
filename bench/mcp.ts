/**
 * One question asked two ways of the sandboxed Lookout: the `report` tool through its `/mcp`
 * (the SDK's Client and StreamableHTTPClientTransport, signed as Slack signs, with `_meta.slack`
 * of a person, as Slackbot asks) and the same report as `/traffic` (a signed slash command from
 * the offline Slack, until the answer is in the channel). Rounds interleave the two, the order
 * swapped each round; the figures are medians over rounds of each phase's median, and the
 * ratios the median of each round's ratio. CPU is this process's (app, offline Slack, demo API
 * and the MCP client all run in it) over a phase, per question. Also prints the size of
 * `tools/list` in characters (aim: ≤ 8,000).
 * Until Lookout serves `/mcp` (the agents feature), the app answers 404 there and the bench
 * says so and measures a stand-in MCP server instead: those figures say nothing of Lookout.
 * Run: npm run bench -- mcp   (BENCH_ROUNDS 5, BENCH_QUESTIONS 20 per phase,
 * BENCH_MCP_ARGS '{"report":"sources","range":"last7d"}', BENCH_COMMAND 'sources last7d')
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpUrlOf, signRequest, slackSignedFetch } from '@lookout/sandbox/slack';
import { createLogger } from '../src/platform/log.js';
import { startMcpStandIn, type McpStandIn } from '../test/support/mcp-stand-in.js';
import { startTestSandbox } from '../test/support/sandbox.js';
import { median, ms } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 20);
const ARGS = JSON.parse(process.env.BENCH_MCP_ARGS ?? '{"report":"sources","range":"last7d"}') as Record<
  string,
  unknown
>;
const COMMAND = process.env.BENCH_COMMAND ?? 'sources last7d';
const CHANNEL = 'C_MARKETING';
const USER = 'U_ALICE';
const say = (text: string) => console.log(`[mcp] ${text}`);

const box = await startTestSandbox({ log: createLogger({ level: 'silent' }), scheduler: false });
const secret = box.secrets.signingSecret;
const sign = (body: string) => ({ ...signRequest(secret, body) });

let url = mcpUrlOf(box.slack.appUrl!);
let standIn: McpStandIn | undefined;
// A GET: the real /mcp answers 405 (POST only) without checking who asks; an app without one, 404.
const probe = await fetch(url);
await probe.body?.cancel();
if (probe.status === 404) {
  standIn = await startMcpStandIn(secret);
  url = new URL(`${standIn.base}/mcp`);
  say('!! the app serves no /mcp (the agents feature is not merged): measuring a STAND-IN MCP server.');
  say('!! Its figures check the bench only and say nothing of Lookout.');
}

// One client for the run: each request has its own JSON-RPC id, so no two signed bodies are alike.
const client = new Client({ name: 'slackbot-bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(url, { fetch: slackSignedFetch(sign) }));
const listed = await client.listTools();
say(
  `tools/list at ${url.href}: ${listed.tools.length} tools, ${JSON.stringify(listed).length} characters (aim ≤ 8,000)`,
);

async function askMcp(): Promise<void> {
  const result = await client.callTool({
    name: 'report',
    arguments: ARGS,
    _meta: { slack: { user_id: USER, team_id: box.slack.workspace.team.id } },
  });
  if (result.isError) throw new Error(`report refused: ${JSON.stringify(result.content)}`);
}

async function askCommand(): Promise<void> {
  const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
  const delivery = await box.slack.slash(CHANNEL, USER, COMMAND, '/traffic');
  if (delivery.status !== 200) throw new Error(`/traffic answered ${delivery.status}`);
  await box.slack.waitForMessage(
    CHANNEL,
    (m) => !before.has(m.ts) && m.ephemeralTo === USER && m.via !== 'notice' && (m.blocks?.length ?? 0) > 0,
  );
}

interface Phase {
  p50: number;
  cpuMs: number;
}

async function phase(ask: () => Promise<void>): Promise<Phase> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < QUESTIONS; i++) {
    const t0 = performance.now();
    await ask();
    times.push(performance.now() - t0);
  }
  const used = process.cpuUsage(cpu);
  return { p50: median(times), cpuMs: (used.user + used.system) / 1000 / QUESTIONS };
}

say(
  `${ROUNDS} rounds × ${QUESTIONS} questions per phase: report ${JSON.stringify(ARGS)} through /mcp ` +
    `against /traffic ${COMMAND}; one process`,
);
// Warm up: JIT, connections, caches.
await phase(askMcp);
await phase(askCommand);

const mcp: Phase[] = [];
const command: Phase[] = [];
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    mcp.push(await phase(askMcp));
    command.push(await phase(askCommand));
  } else {
    command.push(await phase(askCommand));
    mcp.push(await phase(askMcp));
  }
}

const of = (phases: Phase[], key: keyof Phase) => median(phases.map((p) => p[key]));
const ratio = (key: keyof Phase) => median(mcp.map((p, i) => p[key] / command[i]![key]));
const label = standIn ? ' (STAND-IN)' : '';
say(
  `tools/call report${label}   time p50 ${ms(of(mcp, 'p50')).padStart(10)}   CPU ${ms(of(mcp, 'cpuMs'))} per question`,
);
say(
  `/traffic ${COMMAND}   time p50 ${ms(of(command, 'p50')).padStart(10)}   CPU ${ms(of(command, 'cpuMs'))} per question`,
);
say(`MCP / command${label}: time ${ratio('p50').toFixed(2)}×, CPU ${ratio('cpuMs').toFixed(2)}× (aim: CPU ≤ 1.2×)`);

await client.close();
await standIn?.close();
await box.stop();
