/**
 * A workspace's modal views, Home tabs and trigger_ids: what views.* and the page's modals act
 * on. Workspace (workspace.ts) is one of these, with its people, channels and messages.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { SlackError, isRecord, type Json } from './types.js';
import { clone, normalizeBlocks, randomId } from './normalize.js';
import type { BotIdentity } from './seeds.js';
import type { Team, View, WorkspaceChange } from './workspace.js';

const TRIGGER_TTL_MS = 3000;
const MAX_VIEW_STACK = 3;

interface Trigger {
  user: string;
  issuedAt: number;
  used: boolean;
}

export abstract class WorkspaceViews extends EventEmitter<{ change: [WorkspaceChange] }> {
  abstract readonly team: Team;
  abstract readonly bot: BotIdentity;
  abstract readonly now: () => number;
  private readonly views = new Map<string, View>();
  private readonly stacks = new Map<string, string[]>();
  private readonly triggers = new Map<string, Trigger>();

  constructor(private readonly triggerTtlMs: number = TRIGGER_TTL_MS) {
    super();
  }

  // ---- triggers ---------------------------------------------------------------------

  /** A new trigger_id for `user`, good for one views.open/push within the trigger TTL. */
  issueTrigger(user: string): string {
    const id = `${Math.floor(this.now() / 1000)}${randomId(3, '0123456789')}.${randomId(11, '0123456789')}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { user, issuedAt: this.now(), used: false });
    return id;
  }

  /** Uses up a trigger_id: `invalid_trigger_id`, `expired_trigger_id` or `exchanged_trigger_id` when it cannot be used. */
  consumeTrigger(id: unknown): { user: string } {
    if (typeof id !== 'string' || id === '')
      throw new SlackError('invalid_arguments', { reasons: ['trigger_id: is required'] });
    const trigger = this.triggers.get(id);
    if (!trigger) throw new SlackError('invalid_trigger_id');
    if (this.now() - trigger.issuedAt > this.triggerTtlMs) throw new SlackError('expired_trigger_id');
    if (trigger.used) throw new SlackError('exchanged_trigger_id');
    trigger.used = true;
    return { user: trigger.user };
  }

  // ---- views ------------------------------------------------------------------------

  private readonly homes = new Map<string, { view: Json; publishedAt: number; publishes: number }>();

  /** Replaces `user`'s Home tab; what views.publish answers with. */
  publishHome(user: string, view: Json): Json {
    const before = this.homes.get(user);
    const id = `VH${user}`;
    const home = { ...view, id, type: 'home', hash: `${Date.now()}.${(before?.publishes ?? 0) + 1}` };
    this.homes.set(user, { view: home, publishedAt: Date.now(), publishes: (before?.publishes ?? 0) + 1 });
    this.emit('change', { type: 'home', user, view: home });
    return home;
  }

  /** `user`'s Home tab as last published, and how many times it was. */
  home(user: string): { view: Json; publishedAt: number; publishes: number } | undefined {
    return this.homes.get(user);
  }

  view(id: string): View | undefined {
    return this.views.get(id);
  }

  viewByExternalId(externalId: string): View | undefined {
    for (const v of this.views.values()) if (v.open && v.external_id === externalId) return v;
    return undefined;
  }

  /** The user's open modal stack, bottom first (the visible one is last). */
  openViews(user: string): View[] {
    return (this.stacks.get(user) ?? []).map((id) => this.views.get(id)).filter((v): v is View => v !== undefined);
  }

  /** Opens a new modal for `user`, replacing any stack they had open. */
  openView(user: string, input: Json): View {
    for (const v of this.openViews(user)) this.markClosed(v);
    const view = this.buildView(user, input, null, null);
    this.views.set(view.id, view);
    this.stacks.set(user, [view.id]);
    this.emit('change', { type: 'view_open', view });
    return view;
  }

  pushView(user: string, input: Json): View {
    const stack = this.stacks.get(user) ?? [];
    if (stack.length === 0) return this.openView(user, input);
    if (stack.length >= MAX_VIEW_STACK) throw new SlackError('push_limit_reached');
    const top = this.views.get(stack[stack.length - 1] ?? '');
    const view = this.buildView(user, input, top?.root_view_id ?? null, top?.id ?? null);
    this.views.set(view.id, view);
    stack.push(view.id);
    this.emit('change', { type: 'view_open', view });
    return view;
  }

  updateView(id: string, input: Json): View {
    const view = this.views.get(id);
    if (!view || !view.open) throw new SlackError('not_found');
    const fresh = this.buildView(view.user, input, view.root_view_id, view.previous_view_id, view.id);
    const keep = new Set(fresh.blocks.map((b) => String(b.block_id)));
    const values = Object.fromEntries(Object.entries(view.state.values).filter(([blockId]) => keep.has(blockId)));
    Object.assign(view, fresh, { state: { values }, errors: undefined });
    delete view.errors;
    this.emit('change', { type: 'view_update', view });
    return view;
  }

  /** Closes a view; `all` closes the whole stack it belongs to. Returns the views closed. */
  closeView(id: string, options: { all?: boolean } = {}): View[] {
    const view = this.views.get(id);
    if (!view || !view.open) return [];
    const stack = this.stacks.get(view.user) ?? [];
    const index = stack.indexOf(id);
    const from = options.all ? 0 : Math.max(index, 0);
    const closing = stack
      .splice(from)
      .map((vid) => this.views.get(vid))
      .filter((v): v is View => v !== undefined);
    for (const v of closing.reverse()) this.markClosed(v);
    return closing;
  }

  setViewErrors(id: string, errors: Record<string, string>): void {
    const view = this.views.get(id);
    if (!view) return;
    view.errors = { ...errors };
    this.emit('change', { type: 'view_update', view });
  }

  setViewState(id: string, blockId: string, actionId: string, state: Json): void {
    const view = this.views.get(id);
    if (!view) return;
    view.state.values[blockId] = { ...view.state.values[blockId], [actionId]: state };
  }

  private markClosed(view: View): void {
    if (!view.open) return;
    view.open = false;
    this.emit('change', { type: 'view_close', view });
  }

  private buildView(
    user: string,
    input: Json,
    rootId: string | null,
    previousId: string | null,
    reuseId?: string,
  ): View {
    const id = reuseId ?? `V${randomId(10)}`;
    const text = (v: unknown): Json | null => (isRecord(v) ? { emoji: true, ...clone(v) } : null);
    return {
      id,
      team_id: this.team.id,
      type: 'modal',
      title: text(input.title) ?? { type: 'plain_text', text: '' },
      submit: text(input.submit),
      close: text(input.close),
      blocks: normalizeBlocks(clone(Array.isArray(input.blocks) ? input.blocks : [])),
      private_metadata: typeof input.private_metadata === 'string' ? input.private_metadata : '',
      callback_id: typeof input.callback_id === 'string' ? input.callback_id : '',
      external_id: typeof input.external_id === 'string' ? input.external_id : '',
      hash: `${Math.floor(this.now() / 1000)}.${randomId(8, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`,
      clear_on_close: input.clear_on_close === true,
      notify_on_close: input.notify_on_close === true,
      state: { values: {} },
      root_view_id: rootId ?? id,
      previous_view_id: previousId,
      app_id: this.bot.appId,
      bot_id: this.bot.botId,
      user,
      open: true,
    };
  }
}
