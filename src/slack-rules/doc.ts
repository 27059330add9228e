/**
 * docs/slack-rules.md, written from the table (`npm run docs:rules`); a test checks the file
 * is what the table says, so the two never drift.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MCP_SOURCES, SCOPES_WITHOUT_A_METHOD } from './manifest.js';
import { ATTACHMENT_COLOR, BLOCK_RULES, LIMIT_RULES, METHOD_RULES, RESPONSE_URL, type Source } from './rules.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const source = (s: Source) =>
  `[${cell(new URL(s.url).host + new URL(s.url).pathname)}](${s.url})${s.note ? ` ${cell(s.note)}` : ''}`;

export function rulesMarkdown(): string {
  const lines = [
    "# Slack's rules",
    '',
    'Written from `src/slack-rules/rules.ts` by `npm run docs:rules`; edit the table, not this file.',
    'The offline Slack refuses what breaks a rule; Lookout fits every payload to the same rules before it leaves.',
    '',
    '## Blocks: where each may go',
    '',
    '| block | message | modal | Home | in an attachment | source |',
    '|---|---|---|---|---|---|',
  ];
  const mark = (on: boolean) => (on ? 'yes' : 'no');
  for (const [type, rule] of Object.entries(BLOCK_RULES)) {
    const on = (s: string) => mark((rule.surfaces as readonly string[]).includes(s));
    lines.push(
      `| \`${type}\` | ${on('message')} | ${on('modal')} | ${on('home')} | ${mark(rule.inAttachments)} | ${source(rule.source)} |`,
    );
  }
  lines.push('', '## Limits', '', '| limit | at most | source |', '|---|---|---|');
  for (const [name, rule] of Object.entries(LIMIT_RULES))
    lines.push(`| \`${name}\` | ${rule.max.toLocaleString('en-US')} | ${source(rule.source)} |`);
  lines.push(
    '',
    `An attachment's \`color\`: \`${ATTACHMENT_COLOR.pattern.source}\`, ${source(ATTACHMENT_COLOR.source)}.`,
  );
  lines.push(
    '',
    '## Web API methods: rate tier and scopes',
    '',
    '| method | tier | calls a minute (floor) | at once | bot scopes | source |',
    '|---|---|---|---|---|---|',
  );
  for (const [method, rule] of Object.entries(METHOD_RULES)) {
    const burst = ('burst' in rule ? (rule as { burst?: number }).burst : undefined) ?? rule.perMinute;
    lines.push(
      `| \`${method}\` | ${rule.tier} | ${rule.perMinute} | ${burst} | ${rule.scopes.map((s) => `\`${s}\``).join(', ') || 'none'} | ${source(rule.source)} |`,
    );
  }
  lines.push(
    '',
    `A response_url takes ${RESPONSE_URL.uses} answers within ${RESPONSE_URL.withinMs / 60_000} minutes: ${source(RESPONSE_URL.source)}.`,
    '',
    '## The manifest: what no method needs',
    '',
    '| declared | why | source |',
    '|---|---|---|',
    `| \`mcp_servers\` | Slackbot calls Lookout's MCP server (\`/mcp\`) | ${source(MCP_SOURCES.mcpServers)} |`,
    ...Object.entries(SCOPES_WITHOUT_A_METHOD).map(
      ([scope, why]) =>
        `| scope \`${scope}\` | ${cell(why)} | ${scope === 'mcp:connect' ? source(MCP_SOURCES.mcpConnect) : '—'} |`,
    ),
    '',
  );
  return lines.join('\n');
}

export const RULES_DOC = fileURLToPath(new URL('../../docs/slack-rules.md', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(RULES_DOC, rulesMarkdown());
  console.log(`wrote ${RULES_DOC}`);
}
