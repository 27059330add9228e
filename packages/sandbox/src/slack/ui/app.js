// @ts-check
// The sandbox's Slack page: server-sent events, the sidebar, the Home tab, the workspaces,
// and the start. Block Kit is drawn by blocks.js.
import { confirmDialog } from './confirm.js';
import { renderBlocks } from './blocks.js';
import { setupComposer } from './composer.js';
import { $, el, toast } from './dom.js';
import { closeThread, loadChannel, openThread, receive, removeMessage } from './messages.js';
import { closeView, setViews } from './modal.js';
import { setEmoji } from './mrkdwn.js';
import { setupSlackbot } from './slackbot.js';
import { api, avatar, channelOf, inTeam, page, sendAction, state, textCtx, userOf } from './state.js';

/** @import { ChannelInfo, Json, RenderContext, Suggestions, View, WorkspaceInfo } from './types.js' */

function connect() {
  state.source?.close();
  setStatus('connecting');
  const source = new EventSource(inTeam(`/ui/events?user=${encodeURIComponent(state.user)}`));
  state.source = source;
  /**
   * @param {string} name
   * @param {(data: Json) => void} fn
   */
  const on = (name, fn) =>
    source.addEventListener(name, (e) => {
      if (state.source === source) fn(JSON.parse(e.data));
    });
  on('hello', () => {
    setStatus('live');
    void loadChannel();
    if (state.thread) void openThread(state.thread.channel, state.thread.ts);
  });
  on('message', ({ message }) => receive(message, true));
  on('update', ({ message }) => receive(message, false));
  on('delete', ({ channel, ts }) => removeMessage(channel, ts));
  on('views', ({ stack }) => setViews(stack));
  on('channel', ({ channel }) => upsertChannel(channel));
  on('home', ({ view }) => renderHome(view));
  on('delivery', ({ delivery }) => {
    // A failed submission is shown in its modal; a failed command gets Slackbot's notice.
    if (delivery.kind === 'view_submission') return;
    const what = delivery.kind === 'block_actions' ? 'That action' : 'Lookout';
    toast(`${what} failed: ${delivery.error}${delivery.reasons?.length ? ` (${delivery.reasons.join('; ')})` : ''}`);
  });
  source.onerror = () => {
    if (state.source === source) setStatus('reconnecting');
  };
}

/**
 * @param {string} kind
 */
function setStatus(kind) {
  const status = $('connection-status');
  status.dataset.state = kind;
  status.textContent = kind === 'live' ? 'live' : kind === 'reconnecting' ? 'reconnecting…' : 'connecting…';
}

// ---- people and channels ----------------------------------------------------------------

function renderSidebar() {
  const list = $('channel-list');
  list.replaceChildren();
  for (const c of state.workspace.channels.filter((c) => !c.is_archived)) {
    const li = el('li');
    const b = el('button', 'channel-item');
    b.type = 'button';
    b.dataset.testid = 'channel-item';
    b.dataset.channelName = c.name;
    b.dataset.channelId = c.id;
    b.append(el('span', 'hash', c.is_private ? '🔒' : '#'), el('span', 'channel-name', c.name));
    const unread = state.unread.get(c.id) ?? 0;
    if (c.id === state.channel) b.setAttribute('aria-current', 'page');
    if (unread > 0) {
      b.classList.add('unread');
      b.append(el('span', 'badge', String(unread)));
    }
    b.addEventListener('click', () => selectChannel(c.id));
    li.append(b);
    list.append(li);
  }
}

/**
 * @param {ChannelInfo} channel
 */
function upsertChannel(channel) {
  const list = state.workspace.channels;
  const i = list.findIndex((c) => c.id === channel.id);
  if (i >= 0) list[i] = channel;
  else list.push(channel);
  renderSidebar();
}

function renderMe() {
  const select = $('user-switcher');
  select.replaceChildren();
  for (const u of state.workspace.users.filter((u) => !u.is_bot)) {
    const o = el('option', null, `${u.real_name} (@${u.name})`);
    o.value = u.id;
    select.append(o);
  }
  select.value = state.user;
  const me = $('me-avatar');
  me.replaceWith(Object.assign(avatar(state.user, 'avatar-xs'), { id: 'me-avatar' }));
}

function remember() {
  if (location.pathname !== '/') return;
  const params = new URLSearchParams({
    ...(state.team ? { team: state.team } : {}),
    channel: channelOf(state.channel)?.name ?? '',
    user: userOf(state.user)?.name ?? '',
  });
  history.replaceState(null, '', `/?${params}`);
}

// ---- channel ----------------------------------------------------------------------------

// ---- the app's Home tab ---------------------------------------------------------------------

/** Opens Lookout's Home tab: Slack sends the app app_home_opened, and the app publishes the view. */
async function openHome() {
  state.homeOpen = true;
  $('message-list').hidden = true;
  $('composer').hidden = true;
  $('home-panel').hidden = false;
  $('channel-title').textContent = 'Lookout';
  $('channel-meta').textContent = 'Home';
  $('app-home').setAttribute('aria-current', 'page');
  renderSidebar();
  try {
    const { view } = await api('GET', `/ui/home?user=${encodeURIComponent(state.user)}`);
    if (view) renderHome(view);
    else $('home-panel').replaceChildren(el('p', 'home-empty', 'Opening…'));
    await api('POST', '/ui/home-open', { user: state.user });
  } catch (error) {
    toast(error.message);
  }
}

function closeHome() {
  if (!state.homeOpen) return;
  state.homeOpen = false;
  $('message-list').hidden = false;
  $('composer').hidden = false;
  $('home-panel').hidden = true;
  $('app-home').removeAttribute('aria-current');
  // The channel's own header again, also when it is the channel the Home was opened from.
  renderHeader();
}

/**
 * @param {View} view
 */
function renderHome(view) {
  /** @type {RenderContext} */
  const ctx = {
    surface: 'home',
    text: textCtx,
    users: state.workspace.users.filter((u) => !u.is_bot),
    channels: state.workspace.channels,
    state: {},
    onAction: (element, blockId, value) =>
      sendAction({ home: true, block_id: blockId, action_id: element.action_id, value }),
  };
  $('home-panel').replaceChildren(renderBlocks(view.blocks ?? [], ctx));
}

/**
 * @param {string} id
 */
async function selectChannel(id) {
  closeHome();
  if (state.channel === id && !state.loading) return;
  state.channel = id;
  state.unread.delete(id);
  state.messages = [];
  closeThread();
  renderSidebar();
  renderHeader();
  remember();
  await loadChannel();
  $('composer-input').focus();
}

function renderHeader() {
  const c = channelOf(state.channel);
  $('channel-title').textContent = `# ${c?.name ?? ''}`;
  $('channel-meta').textContent = c?.is_member ? 'Lookout is in this channel' : 'Lookout is not in this channel';
  $('composer-input').placeholder = `Message #${c?.name ?? ''} — or type / for commands`;
}

// ---- workspaces and the app's installation -------------------------------------------------

/** The workspace switcher: another workspace is another page (`/?team=`), its people and channels its own. */
function renderTeams() {
  const select = $('team-switcher');
  select.replaceChildren(
    ...state.workspace.teams.map((t) => {
      const option = el('option', '', t.name);
      option.value = t.id;
      option.selected = t.id === state.workspace.team.id;
      return option;
    }),
  );
  select.hidden = state.workspace.teams.length < 2;
  select.addEventListener('change', () => {
    const team = state.workspace.teams.find((t) => t.id === select.value);
    location.assign(team && !team.default ? `/?team=${encodeURIComponent(team.id)}` : '/');
  });
}

function renderInstalled() {
  const button = $('remove-app');
  button.disabled = !state.workspace.installed;
  button.textContent = state.workspace.installed ? 'Remove app' : 'Not installed';
  $('examples').hidden = !state.workspace.installed;
  // Not installed, and the app has an install page: Add to Slack goes there, as this workspace.
  const add = $('add-to-slack');
  add.hidden = state.workspace.installed || !state.workspace.installable;
  add.href = `/ui/add-to-slack?team=${encodeURIComponent(state.workspace.team.id)}`;
}

/** The workspace's demo analytics account (made up for this run): what a person types into Lookout's "Connect your analytics". */
function renderDemoAccount() {
  const account = state.workspace.demo_account;
  $('demo-account').hidden = !account;
  if (!account) return;
  $('demo-account-url').textContent = account.base_url;
  $('demo-account-key').textContent = account.api_key;
}

/** "Remove app": the workspace uninstalls Lookout; Slack revokes its tokens and tells it with two events. */
async function removeApp() {
  const name = state.workspace.team.name;
  const yes = await confirmDialog({
    title: { type: 'plain_text', text: 'Remove Lookout?' },
    text: {
      type: 'plain_text',
      text: `Lookout will be removed from ${name}: its tokens stop working, and it gets tokens_revoked and app_uninstalled.`,
    },
    confirm: { type: 'plain_text', text: 'Remove app' },
    style: 'danger',
  });
  if (!yes) return;
  try {
    await api('POST', '/ui/remove-app', {});
    state.workspace.installed = false;
    renderInstalled();
    void loadChannel();
    toast(`Lookout was removed from ${name}.`, 'info');
  } catch (error) {
    toast(error.message);
  }
}

/** The demo's controls: a spike in this workspace's demo account, in the current hour up to now. */
async function setupDemoControls() {
  const box = $('demo-controls');
  const { available } = await api('GET', '/ui/demo').catch(() => ({ available: false }));
  if (!available) return; // a real analytics API, or none, behind this workspace
  box.hidden = false;
  for (const button of box.querySelectorAll('button[data-spike]')) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const { text } = await api('POST', '/ui/demo/spike', { kind: button.dataset.spike });
        toast(text, 'info');
      } catch (error) {
        toast(error.message);
      } finally {
        button.disabled = false;
      }
    });
  }
}

// ---- start ------------------------------------------------------------------------------

page.selectChannel = selectChannel;
page.renderSidebar = renderSidebar;

async function start() {
  const [workspace, emoji, suggestions] = await Promise.all([
    api('GET', '/ui/workspace'),
    api('GET', '/ui/emoji.json').catch(() => ({})),
    api('GET', '/ui/suggestions.json'),
  ]);
  state.workspace = /** @type {WorkspaceInfo} */ (workspace);
  setEmoji(emoji);
  const params = new URLSearchParams(location.search);
  const permalink = /^\/archives\/([^/]+)\/p(\d{10})(\d{6})/.exec(location.pathname);
  const wantedUser = params.get('user');
  const person = wantedUser
    ? state.workspace.users.find((u) => !u.is_bot && (u.id === wantedUser || u.name === wantedUser))
    : undefined;
  state.user = person?.id ?? state.workspace.default_user;
  const wantedChannel = permalink?.[1] ?? params.get('channel');
  const channel = (wantedChannel && channelOf(wantedChannel)) || channelOf('general') || state.workspace.channels[0];
  state.channel = channel.id;
  if (permalink) state.highlight = `${permalink[2]}.${permalink[3]}`;
  document.title = `${state.workspace.team.name} · Slack`;
  $('workspace-name').textContent = state.workspace.team.name;

  renderTeams();
  renderInstalled();
  renderDemoAccount();
  $('remove-app').addEventListener('click', () => void removeApp());
  void setupDemoControls();
  renderSidebar();
  renderMe();
  renderHeader();
  setupComposer(/** @type {Suggestions} */ (suggestions));
  remember();
  $('app-home').addEventListener('click', () => void openHome());
  setupSlackbot();
  $('user-switcher').addEventListener('change', (/** @type {Event & { target: HTMLSelectElement }} */ e) => {
    state.user = e.target.value;
    state.dismissed.clear();
    state.unread.clear();
    state.drafts.clear();
    closeThread();
    renderMe();
    renderSidebar();
    remember();
    connect();
    if (state.homeOpen) void openHome();
  });
  document.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
    if (e.key === 'Escape' && state.views.length > 0 && !document.querySelector('.confirm-backdrop'))
      void closeView(/** @type {View} */ (state.views.at(-1)));
  });
  connect();
  // Slack's link back from an install (/app_redirect) lands here with the app to open.
  if (params.get('app') && params.get('app') === state.workspace.bot.appId) void openHome();
}

start().catch((error) => {
  document.body.textContent = `The sandbox UI could not start: ${error.message}`;
});
