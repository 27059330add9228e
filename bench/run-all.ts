/** `npm run bench` runs every benchmark; `npm run bench -- <name>` runs one (bench/<name>.ts). */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const all = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !['run-all.ts', 'stats.ts'].includes(f))
  .map((f) => f.replace(/\.ts$/, ''));
const chosen = wanted.length > 0 ? wanted : all;

let failed = false;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`no benchmark "${name}" (have: ${all.join(', ')})`);
    failed = true;
    continue;
  }
  console.log(`\n=== bench/${name}.ts`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`)], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
