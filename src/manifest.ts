/**
 * `npm run manifest`: the slash commands of manifest.json and manifest.distributed.json,
 * written from the features' definitions (each command's description and usage hint; the
 * `/traffic` hint names every feature's words). The rest of each file is kept as it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { FEATURES } from './features/index.js';
import { commandCatalog, trafficHint, type CommandCatalog } from './platform/feature.js';

/** Each slash command's entry as the manifest has it (without its URL and escaping, which each file keeps). */
export function slashCommands(catalog: CommandCatalog): { command: string; description: string; usage_hint: string }[] {
  return catalog.commands.map((c) => ({
    command: c.command,
    description: c.description,
    usage_hint: c.command === '/traffic' ? trafficHint(catalog) : c.usage,
  }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const entries = slashCommands(commandCatalog(FEATURES));
  for (const file of ['manifest.json', 'manifest.distributed.json']) {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
      features: { slash_commands: { command: string; url?: string; should_escape?: boolean }[] };
    };
    const old = manifest.features.slash_commands;
    manifest.features.slash_commands = entries.map((e) => {
      const kept = old.find((c) => c.command === e.command) ?? old[0];
      return {
        command: e.command,
        url: kept?.url,
        description: e.description,
        usage_hint: e.usage_hint,
        should_escape: kept?.should_escape ?? false,
      };
    });
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  }
}
