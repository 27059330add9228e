/**
 * The page's demo controls: a person produces a human spike or a scraper wave in the
 * workspace's own demo account, in the current hour up to now (see demo-api/spikes.ts).
 *
 *   GET  /ui/demo?team=…          whether the workspace has a demo account, and the spikes produced in it so far
 *   POST /ui/demo/spike?team=…    { kind: "human" | "scraper", visits? } → the spike, and a sentence saying it
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { DemoApi } from './demo-api/server.js';
import type { ProducedSpike } from './demo-api/spikes.js';
import { readBody, sendJson } from './slack/http-util.js';
import type { OfflineSlack } from './slack/index.js';

/** Visits a control produces unless asked for another size. */
export const CONTROL_VISITS = { human: 150, scraper: 140 } as const;

const spikeBody = z.strictObject({
  kind: z.enum(['human', 'scraper']),
  visits: z.number().int().min(1).max(5000).optional(),
});

const time = (iso: string): string => iso.slice(11, 16);

/** "150 visits from x.com by 150 new visitors, 10:00–10:37 UTC: none flagged". */
export function describeSpike(s: ProducedSpike): string {
  const span = `${time(s.from)}–${time(s.to)} UTC`;
  const visits = `${s.visits} ${s.visits === 1 ? 'visit' : 'visits'}`;
  if (s.kind === 'drop')
    return `Drop: ${visits} from ${s.source.label} taken out, ${span}; ${s.flaggedVisits === 0 ? 'none' : s.flaggedVisits} of them by flagged visitors.`;
  if (s.kind === 'human')
    return `Human spike: ${visits} from ${s.source.label} by ${s.visitors} new ${s.visitors === 1 ? 'visitor' : 'visitors'}, ${span}; ${s.flaggedVisits === 0 ? 'none' : s.flaggedVisits} flagged.`;
  return `Scraper wave: ${visits} on ${s.page?.path ?? '?'} by ${s.visitors} new ${s.visitors === 1 ? 'scraper' : 'scrapers'}, from ${s.source.label}, ${span}; ${s.flaggedVisits} of the ${visits} by flagged visitors.`;
}

export function mountDemoControls(
  slack: OfflineSlack,
  demo: DemoApi | undefined,
  accountOfTeam: (team: string) => string | undefined,
  now: () => Date = () => new Date(),
): void {
  const account = (req: IncomingMessage) => {
    const team = new URL(req.url ?? '/', 'http://sandbox').searchParams.get('team') || 'T_LOOKOUT';
    const name = accountOfTeam(team);
    return name && demo ? demo.account(name) : undefined;
  };
  const noAccount = (res: ServerResponse) =>
    sendJson(res, 404, { ok: false, error: 'no_demo_account', detail: 'this workspace has no demo account' });

  slack.router
    .add('GET', '/ui/demo', (req, res) => {
      const found = account(req);
      sendJson(
        res,
        200,
        { ok: true, available: !!found, spikes: found?.spikes ?? [] },
        { 'cache-control': 'no-store' },
      );
    })
    .add('POST', '/ui/demo/spike', async (req, res) => {
      const found = account(req);
      if (!found) return noAccount(res);
      let body: z.infer<typeof spikeBody>;
      try {
        body = spikeBody.parse(JSON.parse(await readBody(req, 4096)));
      } catch {
        return sendJson(res, 400, {
          ok: false,
          error: 'invalid_arguments',
          detail: 'send {"kind": "human" | "scraper", "visits": 1–5000}',
        });
      }
      const at = now();
      try {
        const spike = found.spike({
          kind: body.kind,
          hour: at,
          visits: body.visits ?? CONTROL_VISITS[body.kind],
          // The hour up to now (a millisecond on, so the first millisecond of an hour has room).
          before: new Date(at.getTime() + 1),
        });
        sendJson(res, 200, { ok: true, spike, text: describeSpike(spike) });
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        sendJson(res, 409, { ok: false, error: 'cannot_produce', detail: error.message });
      }
    });
}
