import { formatDateTime, MONTHS } from '../../../src/kernel/format.js';
import { localDate } from '../../../src/kernel/dates.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPORT_IDS } from '../../../src/kernel/catalog.js';
import type { Message, View } from '@lookout/sandbox/slack';
import type { Sandbox } from '../../support/sandbox.js';
import type { Digest } from '../../../src/features/digests/repo.js';
import { until } from '../../support/until.js';
import {
  CHANNEL,
  USER,
  hasAction,
  headerOf,
  inputsOf,
  pickSchedule,
  sandbox,
  textsOf,
  mrkdwnText,
} from '../../support/sandbox.js';
import { run } from '../../support/answers.js';

let box: Sandbox & { logs: string[] };

beforeAll(async () => {
  // Bob is the only admin; the scheduler is driven by the tests.
  box = await sandbox({ scheduler: false, settings: { ADMIN_USERS: ['U_BOB'] } });
});
afterAll(async () => {
  await box?.stop();
});
beforeEach(async () => {
  await box.lookout.store.db.query('delete from digests');
  box.demo!.setFaults({});
});

const command = (text: string, user = USER, channel = CHANNEL) => run(box, text, { user, channel });

/**
 * Now, or the end of the 7 days before the channel's today if that is later: the API counts
 * days in UTC, so between 23:00 and 24:00 UTC the week before Berlin's today ends at the next
 * UTC midnight, after now.
 */
function afterTheWeek(): Date {
  return new Date(Math.max(Date.now(), Date.parse(`${localDate(new Date(), 'Europe/Berlin')}T00:00:00Z`)));
}

async function addDigest(extra: Partial<Digest> = {}): Promise<Digest> {
  return box.lookout.store.digests.create({
    teamId: 'T_LOOKOUT',
    channelId: CHANNEL,
    ownerId: USER,
    reports: ['sources', 'pages'],
    filters: [],
    topN: 3,
    period: 'week',
    schedule: { kind: 'daily', time: '09:00' },
    cron: '0 9 * * *',
    timeZone: 'Europe/Berlin',
    ...extra,
  });
}

describe('/traffic digest add (one line)', () => {
  it('adds a digest with everything typed, and lists it', async () => {
    const reply = await command(
      'digest add #general weekdays 08:30 America/New_York sources countries top 3 country:Germany',
    );
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    expect(digest).toMatchObject({
      channelId: 'C_GENERAL',
      ownerId: USER,
      reports: ['sources', 'countries'],
      topN: 3,
      schedule: { kind: 'weekdays', time: '08:30' },
      cron: '30 8 * * 1-5',
      timeZone: 'America/New_York',
      filters: [{ filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['Germany'] }] }],
    });
    expect(mrkdwnText(reply)).toContain(`#${digest!.id}`);
    expect(mrkdwnText(reply)).toContain('weekdays at 08:30 (America/New_York)');
  });

  it('defaults the time zone to the user’s Slack time zone', async () => {
    await command('digest add daily 07:00 sources');
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    expect(digest!.timeZone).toBe('Europe/Berlin'); // alice's zone in the offline Slack
    expect(digest!.channelId).toBe(CHANNEL);
  });

  it('answers a bad line with what is wrong and the usage', async () => {
    const reply = await command('digest add daily sources');
    expect(mrkdwnText(reply)).toMatch(/At what time/);
    expect(await box.lookout.store.digests.listAll('T_LOOKOUT')).toHaveLength(0);
    expect(mrkdwnText(await command('digest add #nowhere daily 09:00 sources'))).toMatch(
      /can't find a channel called #nowhere/,
    );
  });
});

describe('the digest form', () => {
  it('opens prefilled, refuses bad fields beside them, and creates the digest', async () => {
    await box.slack.slash(CHANNEL, USER, 'digest add');
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    const bad = await box.slack.submit(view, {
      channel: CHANNEL,
      reports: ['sources'],
      frequency: 'daily',
      time: '25:00',
      timezone: 'Mars/Olympus',
      top: '5',
    });
    expect(bad.json).toMatchObject({
      response_action: 'errors',
      errors: { time: expect.stringMatching(/hours go from 00 to 23/), timezone: expect.stringMatching(/IANA/) },
    });
    expect(await box.lookout.store.digests.listAll('T_LOOKOUT')).toHaveLength(0);

    const monthly = await pickSchedule(box, view, 'monthly');
    const good = await box.slack.submit(monthly, {
      channel: 'C_GENERAL',
      reports: ['sources', 'cities'],
      monthday: '3',
      time: '10:15',
      timezone: 'Europe/Berlin',
      top: '4',
      filters: 'page~/blog',
    });
    expect(good.status).toBe(200);
    // Saved after the ack.
    const [digest] = await until(async () => {
      const all = await box.lookout.store.digests.listAll('T_LOOKOUT');
      return all.length > 0 ? all : undefined;
    }, 'the digest saved');
    expect(digest).toMatchObject({
      channelId: 'C_GENERAL',
      reports: ['sources', 'cities'],
      cron: '15 10 3 * *',
      topN: 4,
      period: 'month',
    });
    expect(digest!.filters[0]!.filters[0]).toMatchObject({ object: 'page', operator: 'contains', value: '/blog' });
    // Opened in one channel for another: the person hears where they are, with a link to where it posts.
    const here = await box.slack.waitForMessage(
      CHANNEL,
      (m) => m.ephemeralTo === USER && mrkdwnText(m).includes(`Digest #${digest!.id} created`),
    );
    // Each says when it first runs, as the scheduler has it, in the digest's zone.
    const scheduled = await box.lookout.store.digests.of('T_LOOKOUT', digest!.id);
    const first = `${formatDateTime(scheduled!.nextRunAt!.toISOString(), 'Europe/Berlin')} (Europe/Berlin)`;
    expect(first).toMatch(/^\w{3} 3, 10:15 \(Europe\/Berlin\)$|^\w{3} 3, \d{4}, 10:15 \(Europe\/Berlin\)$/);
    expect(mrkdwnText(here)).toContain(
      `Digest #${digest!.id} created: it posts in <#C_GENERAL> the 3rd of each month at 10:15 (Europe/Berlin), first on ${first}.`,
    );
    const there = await box.slack.waitForMessage(
      'C_GENERAL',
      (m) => m.ephemeralTo === USER && (m.text ?? '').includes(`Digest #${digest!.id} created`),
    );
    expect(mrkdwnText(there)).toContain(
      `it posts in this channel the 3rd of each month at 10:15 (Europe/Berlin), first on ${first}.`,
    );
  });
});

describe('the digest form shows the fields of the schedule chosen', () => {
  it('weekly by default: the day of the week and the time; picking another schedule draws its own fields, keeping what was typed', async () => {
    await box.slack.slash(CHANNEL, USER, 'digest add');
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    const schedule = (v: View) => inputsOf(v).filter((id) => ['weekday', 'monthday', 'cron', 'time'].includes(id));
    expect(schedule(view)).toEqual(['weekday', 'time']);
    // What the person typed before picking travels in the action's view state, as in Slack.
    box.slack.workspace.setViewState(view.id, 'time', 'time', { type: 'plain_text_input', value: '07:45' });
    box.slack.workspace.setViewState(view.id, 'filters', 'filters', { type: 'plain_text_input', value: 'page~/blog' });

    const monthly = await pickSchedule(box, view, 'monthly');
    expect(monthly.id).toBe(view.id);
    expect(schedule(monthly)).toEqual(['monthday', 'time']);
    const initial = (v: View, id: string) =>
      (v.blocks.find((b) => b.block_id === id) as { element: { initial_value?: string } }).element.initial_value;
    expect(initial(monthly, 'time')).toBe('07:45');
    expect(initial(monthly, 'filters')).toBe('page~/blog');
    expect(textsOf({ blocks: monthly.blocks }).join('\n')).not.toMatch(/Day of the week|Cron/);

    const weekly = await pickSchedule(box, monthly, 'weekly');
    expect(schedule(weekly)).toEqual(['weekday', 'time']);
    expect(initial(weekly, 'time')).toBe('07:45');
    await box.slack.submit(weekly, { channel: CHANNEL, weekday: '3' });
    const [digest] = await until(async () => {
      const all = await box.lookout.store.digests.listAll('T_LOOKOUT');
      return all.length > 0 ? all : undefined;
    }, 'the digest saved');
    expect(digest).toMatchObject({ schedule: { kind: 'weekly', weekday: 3, time: '07:45' }, cron: '45 7 * * 3' });
    expect(digest!.filters[0]!.filters[0]).toMatchObject({ object: 'page', value: '/blog' });
  });

  it('a cron expression has its own field and no time of day; every day and weekdays need the time alone', async () => {
    await box.slack.slash(CHANNEL, USER, 'digest add');
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    const schedule = (v: View) => inputsOf(v).filter((id) => ['weekday', 'monthday', 'cron', 'time'].includes(id));
    const cron = await pickSchedule(box, view, 'cron');
    expect(schedule(cron)).toEqual(['cron']);
    expect(schedule(await pickSchedule(box, cron, 'daily'))).toEqual(['time']);
    expect(schedule(await pickSchedule(box, cron, 'weekdays'))).toEqual(['time']);
    await box.slack.closeView(cron);
  });

  it('editing a cron digest opens with the cron field alone', async () => {
    const digest = await addDigest({ schedule: { kind: 'cron', cron: '0 7 * * 1-5' }, cron: '0 7 * * 1-5' });
    await box.slack.slash(CHANNEL, USER, `digest edit ${digest.id}`);
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    expect(inputsOf(view).filter((id) => ['weekday', 'monthday', 'cron', 'time'].includes(id))).toEqual(['cron']);
  });
});

describe('/traffic digest list and its buttons', () => {
  it('shows schedule in words, next run and last result; Pause, Resume, Preview, Remove work', async () => {
    const digest = await addDigest();
    let list = await command('digest list');
    expect(mrkdwnText(list)).toContain('every day at 09:00 (Europe/Berlin)');
    expect(mrkdwnText(list)).toContain('last: never run');
    expect(hasAction(list, 'digest.pause')).toBe(true);

    await box.slack.click(list, 'digest.pause');
    const paused = await box.slack.waitForMessage(
      CHANNEL,
      (m) => m.ephemeralTo === USER && mrkdwnText(m).includes(':double_vertical_bar: paused'),
    );
    expect((await box.lookout.store.digests.get(digest.id))!.paused).toBe(true);
    expect(hasAction(paused, 'digest.resume')).toBe(true);

    const resumedBefore = box.slack.messages(CHANNEL, { user: USER }).length;
    await box.slack.click(paused, 'digest.resume');
    const resumed = await box.slack.waitForMessage(
      CHANNEL,
      (m) =>
        m.ephemeralTo === USER &&
        hasAction(m, 'digest.pause') &&
        box.slack.messages(CHANNEL, { user: USER }).length > resumedBefore,
    );
    expect(mrkdwnText(resumed)).toMatch(/next /);
    expect((await box.lookout.store.digests.get(digest.id))!.paused).toBe(false);

    list = await command('digest list');
    await box.slack.click(list, 'digest.preview');
    const preview = await box.slack.waitForMessage(
      CHANNEL,
      (m) => m.ephemeralTo === USER && (headerOf(m) ?? '').startsWith('Digest:'),
    );
    expect(mrkdwnText(preview)).toMatch(/preview: only you see this/);

    await box.slack.click(list, 'digest.remove');
    await box.slack.waitForMessage(
      CHANNEL,
      (m) => m.ephemeralTo === USER && mrkdwnText(m).includes(`Digest #${digest.id} is removed`),
    );
    expect(await box.lookout.store.digests.get(digest.id)).toBeUndefined();
  });

  it('a digest of days before the threat scan began says they were not checked, and claims no count', async () => {
    const digest = await addDigest({ period: 'week' });
    await box.lookout.store.subscriptions.upsert({
      channelId: 'C_SECURITY',
      teamId: 'T_LOOKOUT',
      createdBy: 'U_BOB',
      minSeverity: 'medium',
      checks: ['bot'],
    });
    await box.lookout.store.db.query('update alert_subscriptions set created_at = $1', [afterTheWeek()]);
    try {
      const preview = await command(`digest preview ${digest.id}`);
      // The week ended before the watch began: nothing of it was checked, so no count is claimed.
      expect(mrkdwnText(preview)).toMatch(
        /The threat scan began .* \(Europe\/Berlin\), after this period: its visitors were not checked\./,
      );
      expect(mrkdwnText(preview)).not.toMatch(/no flagged visitors|\d+ flagged visitors?/i);
    } finally {
      await box.lookout.store.db.query('delete from alert_subscriptions');
    }
  });

  it('a digest of a week the threat scan began in counts its flagged visitors from then, and says the days before were not checked', async () => {
    const digest = await addDigest({ period: 'week' });
    const began = new Date(Date.now() - 3 * 86_400_000);
    await box.lookout.store.subscriptions.upsert({
      channelId: 'C_SECURITY',
      teamId: 'T_LOOKOUT',
      createdBy: 'U_BOB',
      minSeverity: 'medium',
      checks: ['bot'],
    });
    await box.lookout.store.db.query('update alert_subscriptions set created_at = $1', [began]);
    await box.lookout.store.db.query(
      'insert into scan_state (key, watermark) values ($1, $2) on conflict (key) do update set watermark = excluded.watermark',
      [(await box.lookout.features.threats.scan.stateKeys())[0], afterTheWeek()],
    );
    const flagged = (visitorId: string, channelId: string, daysAgo: number) =>
      box.lookout.store.alerts.claim({
        teamId: 'T_LOOKOUT',
        channelId,
        visitorId,
        severity: 'high',
        verdict: 'Threat',
        reasons: ['Attacker'],
        visit: {},
        firstSeen: new Date(Date.now() - daysAgo * 86_400_000),
        lastSeen: new Date(Date.now() - daysAgo * 86_400_000),
      });
    // Two visitors within the week (one alerted in two channels), one from today (after the week).
    await flagged('v_a', 'C_SECURITY', 2);
    await flagged('v_a', CHANNEL, 2);
    await flagged('v_b', 'C_SECURITY', 1.5);
    await flagged('v_c', 'C_SECURITY', (Date.now() - afterTheWeek().getTime()) / 86_400_000);
    try {
      const preview = await command(`digest preview ${digest.id}`);
      expect(mrkdwnText(preview)).toMatch(
        /The threat scan began .* \(Europe\/Berlin\), during this period: 2 flagged visitors since then; visits before it were not checked\./,
      );
    } finally {
      await box.lookout.store.db.query('delete from alert_subscriptions');
      await box.lookout.store.db.query('delete from alerts');
      await box.lookout.store.db.query('delete from scan_state');
    }
  });

  it('lets only the owner or an admin change a digest', async () => {
    const digest = await addDigest({ ownerId: 'U_CAROL' });
    const list = await command('digest list');
    expect(hasAction(list, 'digest.pause')).toBe(false); // alice is neither owner nor admin
    expect(mrkdwnText(await command(`digest pause ${digest.id}`))).toMatch(/belongs to someone else/);
    expect((await box.lookout.store.digests.get(digest.id))!.paused).toBe(false);
    expect(mrkdwnText(await command(`digest pause ${digest.id}`, 'U_BOB'))).toMatch(/paused/); // the admin
    expect(mrkdwnText(await command('digest remove 99999'))).toMatch(/no digest #99999/);
  });
});

describe('another workspace', () => {
  const other = () => box.slack.team('T_OTHER');
  async function commandInOther(text: string): Promise<Message> {
    const channel = 'C_OTHER_GENERAL';
    const user = 'U_DANA';
    const before = new Set(
      other()
        .messages(channel, { user })
        .map((m) => m.ts),
    );
    const delivery = await other().slash(channel, user, text);
    expect(delivery.status).toBe(200);
    return other().waitForMessage(
      channel,
      (m) => !before.has(m.ts) && m.user !== user && (!m.ephemeralTo || m.ephemeralTo === user),
    );
  }

  it("finds none of this workspace's digests: pause, resume, edit, preview and remove by id are not found, and its lists are empty", async () => {
    const digest = await addDigest();
    for (const verb of ['pause', 'resume', 'edit', 'preview', 'remove'])
      expect(mrkdwnText(await commandInOther(`digest ${verb} ${digest.id}`))).toContain(
        `There is no digest #${digest.id}.`,
      );
    expect(await box.lookout.store.digests.get(digest.id)).toEqual(digest);
    for (const list of ['digest list', 'digest list all']) {
      const shown = mrkdwnText(await commandInOther(list));
      expect(shown).not.toContain(`#${digest.id}`);
    }
    expect(mrkdwnText(await command('digest list all'))).toContain(`#${digest.id}`);
  });
});

describe('posting a slot', () => {
  // The 20th at 08:00 UTC of the latest month where that is a day past: its week and the one before lie in one
  // month, within the demo API's history whatever the date the tests run on.
  const slot = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 20, 8));
  if (slot.getTime() > Date.now() - 86_400_000) slot.setUTCMonth(slot.getUTCMonth() - 1);
  const month = MONTHS[slot.getUTCMonth()]!;
  const year = slot.getUTCFullYear();

  it('posts the digest with totals and change, and records the run with the message ts', async () => {
    const digest = await addDigest({ reports: ['sources', 'countries'] });
    expect(await box.lookout.features.digests.scheduler.runSlot(digest, slot)).toBe(true);
    await box.lookout.deliveries.drained();
    const posted = await box.slack.waitForMessage(
      CHANNEL,
      (m) => !m.ephemeralTo && (headerOf(m) ?? '') === 'Digest: Sources, Countries',
    );
    const body = mrkdwnText(posted);
    expect(body).toMatch(/\*Visits\*\n[\d,]+ {2}(▲|▼|–|new)/);
    expect(body).toMatch(/\*Sources\*\n1\. /);
    expect(body).toContain(
      `The 7 days before today (${month} 13 – ${month} 19, ${year}) · change against ${month} 6 – ${month} 12, ${year}`,
    );
    // A Berlin digest's figures are the API's days, named as such (the demo API counts in UTC); no visit times are listed.
    expect(body).toContain(' · days in UTC, as the analytics API counts them · ');
    expect(body).not.toMatch(/days in Europe\/Berlin|times in/);
    const chart = posted.blocks?.find((b) => (b as { type: string }).type === 'data_visualization') as
      { title: string; chart: { series: { name: string }[] } } | undefined;
    expect(chart?.title).toBe("Visits per day (UTC, the API's days)");
    expect(chart?.chart.series.map((s) => s.name)).toEqual([`${month} 13–19, ${year}`, `${month} 6–12, ${year}`]);
    const run = await box.lookout.store.runs.get(digest.id, slot);
    expect(run).toMatchObject({ status: 'posted', messageTs: posted.ts, channelId: CHANNEL });
    // The same slot never posts twice.
    expect(await box.lookout.features.digests.scheduler.runSlot(digest, slot)).toBe(false);
    await box.lookout.deliveries.drained();
  });

  it('a report that fails says so; the rest still posts', async () => {
    box.demo!.setFaults({ status500Until: 10_000, paths: ['/pages'] });
    const digest = await addDigest({ reports: ['sources', 'pages'] });
    await box.lookout.features.digests.scheduler.runSlot(digest, slot);
    await box.lookout.deliveries.drained();
    const posted = await box.slack.waitForMessage(
      CHANNEL,
      (m) => !m.ephemeralTo && textsOf(m).join(' ').includes(`digest #${digest.id}`),
    );
    expect(mrkdwnText(posted)).toMatch(/\*Pages\*\n:warning: Could not load: The analytics API is unavailable/);
    expect(mrkdwnText(posted)).toMatch(/\*Sources\*\n1\. /);
  });

  it('an archived channel fails that digest only', async () => {
    const archived = await addDigest({ channelId: 'C_ARCHIVED' });
    const fine = await addDigest({ channelId: 'C_GENERAL' });
    await Promise.all([
      box.lookout.features.digests.scheduler.runSlot(archived, slot),
      box.lookout.features.digests.scheduler.runSlot(fine, slot),
    ]);
    await box.lookout.deliveries.drained();
    expect(await box.lookout.store.runs.get(archived.id, slot)).toMatchObject({
      status: 'failed',
      error: 'is_archived',
    });
    expect(await box.lookout.store.runs.get(fine.id, slot)).toMatchObject({ status: 'posted' });
    // Its owner is told, and the list says what to do.
    expect(box.slack.messages(`D_${archived.ownerId}`).map((m) => m.text)).toContainEqual(
      expect.stringContaining(`digest #${archived.id} in <#C_ARCHIVED> (Slack said is_archived)`),
    );
    const list = textsOf(await command('digest list all')).join(' ');
    expect(list).toContain(`failed ${formatDateTime(slot.toISOString(), archived.timeZone, new Date())} (is_archived)`);
    expect(list).toMatch(/Needs attention: Slack refuses its channel \(`is_archived`\)/);
  });

  it('13 reports at top 10 fit in one message Slack accepts', async () => {
    const digest = await addDigest({ reports: [...REPORT_IDS], topN: 10, channelId: 'C_GENERAL' });
    await box.lookout.features.digests.scheduler.runSlot(digest, slot);
    await box.lookout.deliveries.drained();
    const run = await box.lookout.store.runs.get(digest.id, slot);
    expect(run?.status).toBe('posted');
    const posted = box.slack.messages('C_GENERAL').find((m) => m.ts === run!.messageTs)!;
    expect(posted.blocks!.length).toBeLessThanOrEqual(50);
    expect(mrkdwnText(posted)).toMatch(/\*Visits\*\n1\. /);
  });
});

describe('restarts', () => {
  it('a slot missed less than an hour ago is posted once on start; an older one is recorded as missed', async () => {
    const now = Date.now();
    const recent = new Date(Math.floor((now - 20 * 60_000) / 60_000) * 60_000);
    const old = new Date(Math.floor((now - 3 * 60 * 60_000) / 60_000) * 60_000);
    const cronAt = (d: Date) => `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
    const a = await addDigest({ cron: cronAt(recent), timeZone: 'UTC', channelId: 'C_GENERAL' });
    const b = await addDigest({ cron: cronAt(old), timeZone: 'UTC', channelId: 'C_GENERAL' });
    await box.lookout.store.db.query(`update digests set created_at = now() - interval '1 day'`);

    await box.lookout.features.digests.scheduler.catchUp();
    await box.lookout.deliveries.drained();
    await box.lookout.features.digests.scheduler.catchUp(); // a second replica starting: nothing more
    expect(await box.lookout.store.runs.get(a.id, recent)).toMatchObject({ status: 'posted' });
    expect(await box.lookout.store.runs.get(b.id, old)).toMatchObject({ status: 'missed' });
    const posts = box.slack.messages('C_GENERAL').filter((m) => textsOf(m).join(' ').includes(`digest #${a.id}`));
    expect(posts).toHaveLength(1);
  });

  it('a slot whose replica died mid-fetch is taken over once its heartbeat is stale, and posted exactly once', async () => {
    const digest = await addDigest({ channelId: 'C_GENERAL' });
    const slot = new Date(Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000);
    await box.lookout.store.digests.update(digest.teamId, digest.id, {
      cron: `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`,
      timeZone: 'UTC',
    });
    await box.lookout.store.db.query(`update digests set created_at = now() - interval '1 day'`);
    // The crashed replica claimed the slot and died while fetching: its heartbeat stopped a while ago.
    expect(await box.lookout.store.runs.claim(digest.id, slot, 'replica-that-died')).toBe(true);
    await box.lookout.features.digests.scheduler.catchUp(); // the slot has a run: catch-up leaves it to the heartbeat
    expect(await box.lookout.store.runs.get(digest.id, slot)).toMatchObject({
      status: 'claimed',
      claimedBy: 'replica-that-died',
    });
    await box.lookout.store.db.query(
      `update digest_runs set heartbeat_at = now() - interval '1 hour' where digest_id = $1`,
      [digest.id],
    );
    await box.lookout.features.digests.scheduler.heartbeat();
    await box.lookout.features.digests.scheduler.heartbeat(); // a second look takes nothing more
    const posted = () =>
      box.slack.messages('C_GENERAL').filter((m) => textsOf(m).join(' ').includes(`digest #${digest.id}`));
    await box.slack.waitFor(() => posted().length > 0 || undefined);
    await box.lookout.deliveries.drained();
    expect(posted()).toHaveLength(1);
    expect(await box.lookout.store.runs.get(digest.id, slot)).toMatchObject({
      status: 'posted',
      claimedBy: expect.not.stringMatching('replica-that-died'),
    });
  });

  it('a slot whose replica died is abandoned, with why, once it is past the catch-up window', async () => {
    const digest = await addDigest({ channelId: 'C_GENERAL' });
    const slot = new Date(Math.floor((Date.now() - 3 * 3_600_000) / 60_000) * 60_000);
    expect(await box.lookout.store.runs.claim(digest.id, slot, 'replica-that-died')).toBe(true);
    await box.lookout.store.db.query(
      `update digest_runs set heartbeat_at = now() - interval '1 hour' where digest_id = $1`,
      [digest.id],
    );
    await box.lookout.features.digests.scheduler.heartbeat();
    expect(await box.lookout.store.runs.get(digest.id, slot)).toMatchObject({
      status: 'abandoned',
      error: expect.stringContaining('catch-up window'),
    });
    expect(
      box.slack.messages('C_GENERAL').filter((m) => textsOf(m).join(' ').includes(`digest #${digest.id}`)),
    ).toHaveLength(0);
  });
});

describe('names and zones from Slack', () => {
  it('finds a channel typed as #name on a later page of conversations.list', async () => {
    const target = Array.from({ length: 450 }, (_, i) =>
      box.slack.workspace.addChannel({ name: `team-${String(i).padStart(3, '0')}` }),
    ).at(-1)!;
    const listed = () => box.slack.webApi.calls.filter((c) => c.method === 'conversations.list');
    const before = listed().length;
    const reply = await command(`digest add #${target.name} daily 09:00 Europe/Berlin sources`);
    expect(textsOf(reply).join(' ')).toContain('just added');
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    expect(digest?.channelId).toBe(target.id);
    const pages = listed().slice(before);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.map((c) => Boolean(c.args.cursor))).toEqual([false, ...pages.slice(1).map(() => true)]);
  });

  it('says so when no page has the channel', async () => {
    expect(mrkdwnText(await command('digest add #no-such-channel daily 09:00 sources'))).toMatch(
      /can't find a channel called #no-such-channel/,
    );
    expect(await box.lookout.store.digests.listAll('T_LOOKOUT')).toHaveLength(0);
  });

  it("uses the person's own time zone, and the default zone when users.info fails", async () => {
    await command('digest add daily 09:00 sources');
    expect((await box.lookout.store.digests.listAll('T_LOOKOUT'))[0]?.timeZone).toBe('Europe/Berlin'); // Alice's profile zone
    box.slack.failNext('users.info', 'user_not_found');
    await command('digest add daily 10:00 sources');
    const second = (await box.lookout.store.digests.listAll('T_LOOKOUT'))[1];
    expect(second?.timeZone).toBe('UTC'); // DEFAULT_TIMEZONE in this sandbox
    expect(box.logs.some((line) => line.includes('users.info failed; using the default time zone'))).toBe(true);
  });
});
