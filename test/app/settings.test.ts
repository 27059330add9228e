import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultSettings, settingsSchema, settingsWith } from '../../src/config.js';
import { FEATURES } from '../../src/features/index.js';
import { FEATURE_SETTINGS } from '../../src/features/settings.js';

/** The variables the configuration table of docs/operations.md names in its first column, as often as it names them. */
function documented(): string[] {
  const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Configuration'))!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
}

describe('the settings', () => {
  const declared = Object.keys(settingsSchema(FEATURES).shape);

  it('are each in the configuration table once, and the table names nothing else', () => {
    const table = documented();
    const count = (name: string) => table.filter((n) => n === name).length;
    expect(declared.filter((name) => count(name) !== 1)).toEqual([]);
    expect(table.filter((name) => !declared.includes(name))).toEqual([]);
  });

  it('are read from the same slices the features plug, with nothing else', () => {
    const plugged = FEATURES.flatMap((f) => ('settings' in f && f.settings ? [[f.name, f.settings] as const] : []));
    expect(Object.keys(FEATURE_SETTINGS)).toEqual(plugged.map(([name]) => name));
    for (const [name, slice] of plugged) {
      const read = FEATURE_SETTINGS[name as keyof typeof FEATURE_SETTINGS]();
      expect(Object.keys(read.shape), name).toEqual(Object.keys(slice.shape));
      expect(read.parse({}), name).toEqual(slice.parse({}));
    }
  });

  it('refuse a variable declared twice', () => {
    const again = {
      name: 'again',
      settings: z.object({ ALERT_BURST: z.number() }),
      plug: () => ({ gives: undefined }),
    };
    expect(() => settingsSchema([...FEATURES, again])).toThrow(
      "ALERT_BURST is declared twice: feature 'again' declares it again",
    );
  });

  it("take each one's default unless given, as a typed value (below the environment's minimum too)", () => {
    expect(defaultSettings()).toMatchObject({
      ALERT_SCAN_INTERVAL: 60_000,
      WATCHES_PER_CHANNEL: 10,
      WATCHES_PER_USER: 20,
    });
    const settings = settingsWith(FEATURES, { ALERT_SCAN_INTERVAL: 50, ALERT_BURST: undefined });
    expect(settings.ALERT_SCAN_INTERVAL).toBe(50);
    expect(settings.ALERT_BURST).toBe(5);
  });
});
