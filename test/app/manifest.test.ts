/**
 * manifest.json is what Slack would accept (the manifest schema's rules, slack-rules/
 * manifest.ts), asks for every scope a method Lookout calls needs and no scope nothing
 * needs, and subscribes to exactly the events it has listeners for; it declares /mcp for Slackbot. The methods and events
 * are read from the product's own source, so a new call without its scope fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_SCOPES, Manifest, SCOPES_WITHOUT_A_METHOD } from '../../src/slack-rules/manifest.js';
import { METHOD_RULES, type MethodName } from '../../src/slack-rules/rules.js';
import { BOT_SCOPES } from '../../src/platform/slack/scopes.js';
import { FEATURES } from '../../src/features/index.js';
import { commandCatalog } from '../../src/platform/feature.js';
import { slashCommands } from '../../src/manifest.js';
import { MCP_PATH } from '../../src/features/agents/index.js';

const manifest = Manifest.parse(JSON.parse(readFileSync('manifest.json', 'utf8')));
const distributed = Manifest.parse(JSON.parse(readFileSync('manifest.distributed.json', 'utf8')));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'sandbox' ? [] : sources(path);
    return path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}
const product = sources('src').join('\n');
const called = [...new Set([...product.matchAll(/client\.(\w+)\.(\w+)\(/g)].map((m) => `${m[1]}.${m[2]}`))].sort();
const listened = [...new Set([...product.matchAll(/\.event\('(\w+)'/g)].map((m) => m[1]!))].sort();

describe('manifest.json', () => {
  it("keeps to Slack's manifest schema (version 2)", () => {
    expect(Manifest.safeParse(JSON.parse(readFileSync('manifest.json', 'utf8'))).success).toBe(true);
    // The checks bite: a key the schema does not name, a name too long, a command without its slash.
    const bad = (patch: (m: Manifest) => void) => {
      const m = JSON.parse(readFileSync('manifest.json', 'utf8')) as Manifest;
      patch(m);
      return Manifest.safeParse(m).success;
    };
    expect(bad((m) => ((m.settings!.interactivity as Record<string, unknown>).enabled = true))).toBe(false);
    expect(bad((m) => (m.display_information.name = 'x'.repeat(36)))).toBe(false);
    expect(bad((m) => (m.features!.slash_commands![0]!.command = 'traffic'))).toBe(false);
    expect(bad((m) => (m.settings!.event_subscriptions!.bot_events = ['app_home_opened', 'app_home_opened']))).toBe(
      false,
    );
  });

  it("every Web API method Lookout calls is in Slack's rules table, and every scope they need is asked for", () => {
    expect(called.length).toBeGreaterThan(5);
    for (const method of called)
      expect(Object.keys(METHOD_RULES), `${method} has no row in slack-rules/rules.ts`).toContain(method);
    const needed = new Set([
      ...called.flatMap((m) => METHOD_RULES[m as MethodName].scopes),
      ...listened.flatMap((e) => EVENT_SCOPES[e] ?? []),
    ]);
    const asked = new Set(manifest.oauth_config?.scopes?.bot ?? []);
    for (const scope of needed) expect([...asked], `${scope} is needed and not asked for`).toContain(scope);
    for (const scope of asked)
      expect(needed.has(scope) || scope in SCOPES_WITHOUT_A_METHOD, `${scope} is asked for and nothing needs it`).toBe(
        true,
      );
    expect(asked.has('commands')).toBe((manifest.features?.slash_commands?.length ?? 0) > 0);
  });

  it('subscribes to exactly the events Lookout listens for, with the Home tab on for app_home_opened', () => {
    expect(listened).toEqual(['app_home_opened', 'app_uninstalled', 'tokens_revoked']);
    expect([...(manifest.settings?.event_subscriptions?.bot_events ?? [])].sort()).toEqual(listened);
    for (const event of listened) expect(Object.keys(EVENT_SCOPES)).toContain(event);
    expect(manifest.features?.app_home?.home_tab_enabled).toBe(true);
    expect(manifest.settings?.interactivity?.is_enabled).toBe(true);
  });

  it("declares Lookout's MCP server for Slackbot, with mcp:connect, as Slack's schema and sample have them", () => {
    expect(manifest.mcp_servers).toEqual({
      lookout: { url: 'https://lookout.example.com/mcp', auth_type: 'slack_identity_auth' },
    });
    expect(new URL(manifest.mcp_servers!.lookout!.url).pathname).toBe(MCP_PATH);
    expect(manifest.oauth_config?.scopes?.bot).toContain('mcp:connect');
    expect(SCOPES_WITHOUT_A_METHOD['mcp:connect']).toBeDefined();
    const bad = (server: Record<string, unknown>) =>
      Manifest.safeParse({ ...manifest, mcp_servers: { lookout: server } }).success;
    expect(bad({ url: 'https://lookout.example.com/mcp', auth_type: 'slack_identity_auth' })).toBe(true);
    expect(bad({ url: 'http://lookout.example.com/mcp', auth_type: 'slack_identity_auth' })).toBe(false);
    expect(bad({ url: 'https://lookout.example.com/mcp', auth_type: 'bearer' })).toBe(false);
    expect(bad({ url: 'https://lookout.example.com/mcp' })).toBe(false);
    expect(bad({ url: 'https://lookout.example.com/mcp', auth_type: 'no_auth', scopes: [] })).toBe(false);
    const many = Object.fromEntries(
      Array.from({ length: 21 }, (_, i) => [`s${i}`, { url: 'https://x.example/mcp', auth_type: 'no_auth' }]),
    );
    expect(Manifest.safeParse({ ...manifest, mcp_servers: many }).success).toBe(false);
  });

  it('has the commands Lookout registers', () => {
    const commands = [
      ...new Set([...product.matchAll(/(?:\.command|\.handleCommand)\('(\/\w+)'/g)].map((m) => m[1]!)),
    ].sort();
    expect(commands.length).toBeGreaterThan(0);
    expect((manifest.features?.slash_commands ?? []).map((c) => c.command).sort()).toEqual(commands);
  });

  it("each command's description and usage hint are the features' own words (npm run manifest writes them)", () => {
    for (const file of [manifest, distributed]) {
      const written = (file.features?.slash_commands ?? []).map((c) => ({
        command: c.command,
        description: c.description,
        usage_hint: c.usage_hint,
      }));
      expect(written).toEqual(slashCommands(commandCatalog(FEATURES)));
    }
  });
});

describe('manifest.distributed.json (any workspace installs it by OAuth)', () => {
  it('asks for what manifest.json asks for, and no more: the same scopes, events and commands', () => {
    expect(distributed.oauth_config?.scopes).toEqual(manifest.oauth_config?.scopes);
    expect(distributed.settings?.event_subscriptions).toEqual(manifest.settings?.event_subscriptions);
    expect(distributed.features).toEqual(manifest.features);
    expect(distributed.mcp_servers).toEqual(manifest.mcp_servers);
    expect([...(distributed.oauth_config?.scopes?.bot ?? [])].sort()).toEqual([...BOT_SCOPES].sort());
  });

  it('names the OAuth redirect URL Lookout serves, and turns token rotation on', () => {
    expect(distributed.oauth_config?.redirect_urls?.map((u) => new URL(u).pathname)).toEqual(['/slack/oauth_redirect']);
    expect(distributed.settings?.token_rotation_enabled).toBe(true);
  });
});
