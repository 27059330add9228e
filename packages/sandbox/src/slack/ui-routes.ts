/**
 * The offline Slack's browser UI: a small Slack-like page served from `ui/` (plain HTML,
 * CSS and ES modules, no build step) and the JSON endpoints it talks to. Everything a
 * person does in the page goes through the driver (`slash`, `click`, `submit`,
 * `closeView`), so the app gets exactly the signed requests real Slack would send;
 * what changes in the workspace reaches the page as server-sent events.
 *
 *   GET  /                       the page (also /archives/… permalinks)
 *   GET  /ui/assets/<file>       its static files
 *   GET  /ui/emoji.json          Slack's emoji shortcodes → emoji (from emojibase-data)
 *   GET  /ui/suggestions.json    what the composer suggests: the app's commands and examples (suggestions.ts)
 *   GET  /ui/vendor/chart.js     Chart.js (UMD, from node_modules) to draw data_visualization blocks
 *   GET  /ui/workspace           team, people, channels, the workspaces to switch between, whether the app is installed
 *                                (and whether it has an install page to add it from), and the workspace's demo
 *                                analytics account (base URL and key) when the sandbox made one
 *   GET  /ui/add-to-slack        the page's Add to Slack link: remembers the workspace (a cookie, as being signed
 *                                in to it) and redirects to the app's install page
 *   GET  /ui/state?channel&user  what the user sees in a channel, and their open modals
 *   GET  /ui/thread?channel&ts&user
 *   GET  /ui/events?user         server-sent events: message, update, delete, view, channel, delivery, home
 *   POST /ui/command             { channel, user, text, thread_ts? }: a slash command (run in the channel),
 *                                or a plain message (in the thread when thread_ts is given)
 *   POST /ui/action              { user, channel, ts, block_id, action_id, value? } or { user, view_id, block_id, action_id, value? }
 *   GET  /ui/home?user           the user's Home tab as the app last published it
 *   POST /ui/home-open           { user }: the user opens Lookout's Home tab (the app gets app_home_opened)
 *   POST /ui/submit              { user, view_id, values }
 *   POST /ui/close-view          { user, view_id }
 *   POST /ui/remove-app          {}: the workspace removes the app (its tokens revoked, the app told by events)
 *   /ui/slackbot/…               Slackbot asking the app's MCP server (slackbot.ts)
 *
 * Every endpoint acts in the workspace `?team=` names (default: workspace one).
 *
 * Bad requests get `400 { ok: false, error, detail }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson } from './http-util.js';
import type { OfflineSlack } from './server.js';
import type { RouteContext, RouteHandler, Router } from './router.js';
import type { SlackDriver } from './driver.js';
import { SIGNED_IN_COOKIE } from './oauth.js';
import type { Json } from './types.js';
import { SLACKBOT } from './seeds.js';
import type { Channel, SlackUser, View, Workspace, WorkspaceChange } from './workspace.js';
import { uiUser, uiChannel, uiMessage, uiView, deliverySummary, uiEvent } from './ui-shapes.js';
import { findUiDir, serveFile, emojiTable, serveChartJs } from './ui-files.js';
import { UiError, id, commandBody, actionBody, submitBody, closeBody, jsonBody } from './ui-requests.js';
import { mountSlackbotRoutes } from './slackbot.js';

/** The slash commands the sandbox knows (those in manifest.json). */
export const UI_COMMANDS = ['/traffic', '/visitor'] as const;

const DEFAULT_USER = 'U_ALICE';
const PING_MS = 15_000;

// ---- routes ---------------------------------------------------------------------------

/** The person a page opens as: Alice in workspace one, the first person elsewhere. */
function defaultUser(ws: Workspace): string {
  if (ws.user(DEFAULT_USER)) return DEFAULT_USER;
  return [...ws.users.values()].find((u) => !u.is_bot)?.id ?? DEFAULT_USER;
}

/** The driver of the workspace `?team=` names (workspace one when unset). */
function teamOf(slack: OfflineSlack, url: URL): SlackDriver {
  const team = url.searchParams.get('team');
  if (!team) return slack;
  try {
    return slack.team(team);
  } catch {
    throw new UiError(400, 'team_not_found', `no workspace "${team}"`);
  }
}

interface UiContext {
  url: URL;
  /** The driver of the workspace the request acts in. */
  slack: SlackDriver;
  /** The whole offline Slack. */
  offline: OfflineSlack;
}

/** Slack sends an app nothing from a workspace it is not installed in. */
function requireInstalled(ctx: UiContext): void {
  const team = ctx.slack.workspace.team;
  if (!ctx.offline.oauth.installed(team.id))
    throw new UiError(400, 'not_installed', `Lookout is not installed in ${team.name}`);
}

function person(ws: Workspace, ref: string | null | undefined): SlackUser {
  const user = ws.user(ref || defaultUser(ws));
  if (!user || user.is_bot) throw new UiError(400, 'unknown_user', `no person "${ref ?? ''}" in this workspace`);
  return user;
}

function channelOf(ws: Workspace, ref: string | null | undefined): Channel {
  if (!ref) throw new UiError(400, 'invalid_arguments', 'channel: is required');
  const channel = ws.channel(ref);
  if (!channel) throw new UiError(400, 'channel_not_found', `no channel "${ref}"`);
  return channel;
}

function openViewOf(ws: Workspace, viewId: string, user: SlackUser): View {
  const view = ws.view(viewId);
  if (!view || !view.open) throw new UiError(400, 'view_not_found', `no open view ${viewId}`);
  if (view.user !== user.id) throw new UiError(400, 'view_not_found', `view ${viewId} belongs to someone else`);
  return view;
}

/** Runs a driver call; what it refuses (no such element, a required input left empty…) is a 400. */
async function drive<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UiError) throw error;
    throw new UiError(400, 'refused', error instanceof Error ? error.message : String(error));
  }
}

/** Wraps a JSON handler: UiErrors become `{ ok: false, error, detail }` with their status. */
function json(handler: (req: IncomingMessage, ctx: UiContext) => Json | Promise<Json>): RouteHandler {
  return async (req, res, ctx) => {
    try {
      const body = await handler(req, { url: ctx.url, slack: teamOf(ctx.slack, ctx.url), offline: ctx.slack });
      sendJson(res, 200, { ok: true, ...body }, { 'cache-control': 'no-store' });
    } catch (error) {
      if (!(error instanceof UiError)) throw error;
      sendJson(res, error.status, { ok: false, error: error.code, ...(error.detail ? { detail: error.detail } : {}) });
    }
  };
}

function events(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): void {
  let ws: Workspace;
  let user: SlackUser;
  try {
    ws = teamOf(ctx.slack, ctx.url).workspace;
    user = person(ws, ctx.url.searchParams.get('user'));
  } catch (error) {
    if (!(error instanceof UiError)) throw error;
    sendJson(res, 400, { ok: false, error: error.code, detail: error.detail });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const send = (event: string, data: Json): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  res.write('retry: 1000\n\n');
  send('hello', { user: user.id });
  const onChange = (change: WorkspaceChange): void => {
    const out = uiEvent(change, user.id, ws);
    if (out) send(out.event, out.data);
  };
  ws.on('change', onChange);
  const ping = setInterval(() => res.write(': ping\n\n'), PING_MS);
  ping.unref();
  const stop = (): void => {
    clearInterval(ping);
    ws.off('change', onChange);
  };
  req.once('close', stop);
  res.once('close', stop);
}

/** Adds the page and its endpoints to the offline Slack's router. */
export function mountUiRoutes(router: Router, options: { dir?: string } = {}): void {
  const dir = options.dir ?? findUiDir();
  const page: RouteHandler = (_req, res) => serveFile(dir, 'index.html', res);

  router
    .add('GET', '/', page)
    .add('GET', '/archives/*', page)
    .add('GET', '/ui/assets/:file', (_req, res, ctx) => serveFile(dir, ctx.params.file ?? '', res))
    .add('GET', '/ui/events', events)
    .add(
      'GET',
      '/ui/emoji.json',
      json(() => emojiTable()),
    )
    .add('GET', '/ui/vendor/chart.js', (_req, res) => serveChartJs(res))
    .add(
      'GET',
      '/ui/suggestions.json',
      json((_req, { offline }) => ({ ...offline.suggestions })),
    )
    .add(
      'GET',
      '/ui/workspace',
      json((_req, { slack, offline }) => {
        const ws = slack.workspace;
        const people = [...ws.users.values()];
        const demo = offline.demoAccount(ws.team.id);
        return {
          team: { ...ws.team },
          teams: offline.teams.map((d) => ({ ...d.workspace.team, default: d === offline })),
          installed: offline.oauth.installed(ws.team.id),
          installable: offline.installUrl !== undefined,
          demo_account: demo ? { base_url: demo.baseUrl, api_key: demo.apiKey } : null,
          bot: { ...ws.bot },
          slackbot: SLACKBOT,
          default_user: defaultUser(ws),
          users: people.map(uiUser),
          channels: [...ws.channels.values()].map(uiChannel),
          commands: [...UI_COMMANDS],
        };
      }),
    )
    .add('GET', '/ui/add-to-slack', (_req, res, ctx) => {
      const installUrl = ctx.slack.installUrl;
      let team: string;
      try {
        team = teamOf(ctx.slack, ctx.url).workspace.team.id;
      } catch (error) {
        if (!(error instanceof UiError)) throw error;
        return sendJson(res, error.status, { ok: false, error: error.code, detail: error.detail });
      }
      if (!installUrl) return sendJson(res, 404, { ok: false, error: 'no_install_page' });
      res.writeHead(302, {
        location: installUrl,
        'set-cookie': `${SIGNED_IN_COOKIE}=${encodeURIComponent(team)}; Path=/; HttpOnly; SameSite=Lax`,
        'content-length': 0,
      });
      res.end();
    })
    .add(
      'GET',
      '/ui/state',
      json((_req, { slack, url }) => {
        const ws = slack.workspace;
        const user = person(ws, url.searchParams.get('user'));
        const channel = channelOf(ws, url.searchParams.get('channel'));
        return {
          user: user.id,
          channel: uiChannel(channel),
          messages: ws.visibleMessages(channel.id, user.id).map(uiMessage),
          views: ws.openViews(user.id).map(uiView),
        };
      }),
    )
    .add(
      'GET',
      '/ui/thread',
      json((_req, { slack, url }) => {
        const ws = slack.workspace;
        const user = person(ws, url.searchParams.get('user'));
        const channel = channelOf(ws, url.searchParams.get('channel'));
        const ts = url.searchParams.get('ts') ?? '';
        const messages = ws.thread(channel.id, ts, user.id);
        if (messages.length === 0) throw new UiError(400, 'thread_not_found', `no message ${ts} in #${channel.name}`);
        return { channel: channel.id, thread_ts: ts, messages: messages.map(uiMessage) };
      }),
    )
    .add(
      'POST',
      '/ui/command',
      json(async (req, ctx) => {
        const { slack } = ctx;
        const body = await jsonBody(req, commandBody);
        const ws = slack.workspace;
        const user = person(ws, body.user);
        const channel = channelOf(ws, body.channel);
        if (channel.is_archived) throw new UiError(400, 'is_archived', `#${channel.name} is archived`);
        const text = body.text.trim();
        const command = /^(\/[a-z0-9_-]+)(?:\s+([\s\S]*))?$/i.exec(text);
        if (body.thread_ts !== undefined && !ws.message(channel.id, body.thread_ts)) {
          throw new UiError(400, 'thread_not_found', `no message ${body.thread_ts} in #${channel.name}`);
        }
        if (!command) {
          const message = slack.say(channel.id, user.id, body.text, body.thread_ts);
          return { message: uiMessage(message) };
        }
        const name = (command[1] ?? '').toLowerCase();
        if (!ctx.offline.oauth.installed(ws.team.id)) {
          throw new UiError(
            400,
            'unknown_command',
            `${name} is not a valid command: Lookout is not installed in ${ws.team.name}.`,
          );
        }
        if (!(UI_COMMANDS as readonly string[]).includes(name)) {
          throw new UiError(400, 'unknown_command', `${name} is not a valid command. Try ${UI_COMMANDS.join(' or ')}.`);
        }
        const delivery = await drive(() => slack.slash(channel.id, user.id, (command[2] ?? '').trim(), name));
        return { delivery: deliverySummary(delivery) };
      }),
    )
    .add(
      'POST',
      '/ui/action',
      json(async (req, ctx) => {
        const { slack } = ctx;
        requireInstalled(ctx);
        const body = await jsonBody(req, actionBody);
        const ws = slack.workspace;
        const user = person(ws, body.user);
        if (body.home) {
          const value = typeof body.value === 'string' ? { value: body.value } : {};
          const delivery = await drive(() =>
            slack.clickHome(user.id, body.action_id, {
              ...(body.block_id ? { blockId: body.block_id } : {}),
              ...value,
            }),
          );
          return { delivery: deliverySummary(delivery) };
        }
        if (body.view_id !== undefined) {
          const view = openViewOf(ws, body.view_id, user);
          const delivery = await drive(() => slack.click(view, body.action_id, body.value, { blockId: body.block_id }));
          return { delivery: deliverySummary(delivery) };
        }
        const channel = channelOf(ws, body.channel);
        const message = ws.message(channel.id, body.ts ?? '');
        if (!message || (message.ephemeralTo && message.ephemeralTo !== user.id)) {
          throw new UiError(400, 'message_not_found', `no message ${body.ts ?? ''} in #${channel.name}`);
        }
        const delivery = await drive(() =>
          slack.click(message, body.action_id, body.value, { user: user.id, blockId: body.block_id }),
        );
        return { delivery: deliverySummary(delivery) };
      }),
    )
    .add(
      'GET',
      '/ui/home',
      json((_req, { slack, url }) => {
        const user = person(slack.workspace, url.searchParams.get('user') ?? '');
        return { view: slack.workspace.home(user.id)?.view ?? null };
      }),
    )
    .add(
      'POST',
      '/ui/home-open',
      json(async (req, ctx) => {
        const { slack } = ctx;
        requireInstalled(ctx);
        const body = await jsonBody(req, z.object({ user: id }));
        const user = person(slack.workspace, body.user);
        // Slack's retries of a late answer can take minutes: the page does not wait for them; the view comes as a `home` event.
        void slack.event('app_home_opened', user.id, { tab: 'home' }).catch(() => undefined);
        return { opened: true };
      }),
    )
    .add(
      'POST',
      '/ui/submit',
      json(async (req, { slack }) => {
        const body = await jsonBody(req, submitBody);
        const view = openViewOf(slack.workspace, body.view_id, person(slack.workspace, body.user));
        const delivery = await drive(() => slack.submit(view, body.values));
        return { delivery: deliverySummary(delivery) };
      }),
    )
    .add(
      'POST',
      '/ui/close-view',
      json(async (req, { slack }) => {
        const body = await jsonBody(req, closeBody);
        const view = openViewOf(slack.workspace, body.view_id, person(slack.workspace, body.user));
        const delivery = await drive(() => slack.closeView(view));
        return { delivery: deliverySummary(delivery) };
      }),
    )
    .add(
      'POST',
      '/ui/remove-app',
      json(async (req, { slack, offline }) => {
        await jsonBody(req, z.object({}).loose());
        const team = slack.workspace.team;
        if (!offline.oauth.installed(team.id))
          throw new UiError(400, 'not_installed', `Lookout is not installed in ${team.name}`);
        // The events go out in the background (their retries can take minutes); the tokens are revoked at once.
        const done = offline.uninstall(team.id);
        void done.catch(() => undefined);
        return { removed: true, team: team.id };
      }),
    );
  mountSlackbotRoutes(router);
}
