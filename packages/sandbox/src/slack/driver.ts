/**
 * The programmatic driver: what a person does in Slack (run a command, click a button,
 * pick an option, submit a modal) and what they see (a channel, a thread, their open
 * modals), plus waits that resolve on workspace change events instead of polling.
 */
import type { Deliverer } from './delivery.js';
import type { DeliveryOptions } from './transport.js';
import type { SignatureHeaders } from './signing.js';
import { isRecord, type Delivery, type Json } from './types.js';
import type { Message, SlackUser, View, Workspace, WorkspaceChange } from './workspace.js';
import {
  type FoundElement,
  single,
  stateValue,
  isEmptyState,
  findElement,
  messageBlocks,
  actionIdsOf,
} from './elements.js';

export type { DeliveryOptions };

export interface ClickOptions extends DeliveryOptions {
  /** Who clicks. Default: the ephemeral's recipient, else the user who caused the message, else U_ALICE. */
  user?: string;
  /**
   * The block the element is in. Needed when more than one element has the action_id (a
   * list with a Pause button per item): Slack sends the element the person touched.
   */
  blockId?: string;
}

/** A message as stored, or just where it is. */
export type MessageRef = Message | { channel: string; ts: string };

/** Values for `submit`, by action_id: a string, or a list for multi-selects and checkboxes. */
export type SubmitValues = Record<string, string | string[] | number>;

function actionTs(nowMs: number): string {
  return (nowMs / 1000).toFixed(6);
}

function isView(target: unknown): target is View {
  return isRecord(target) && target.type === 'modal' && typeof target.id === 'string';
}

export class SlackDriver {
  constructor(
    readonly workspace: Workspace,
    protected readonly deliverer: Deliverer,
  ) {}

  /** Every request sent to the app so far, oldest first. */
  get deliveries(): readonly Delivery[] {
    return this.workspace.deliveries;
  }

  private user(ref: string): SlackUser {
    const user = this.workspace.user(ref);
    if (!user || user.is_bot) throw new Error(`no such user: ${ref}`);
    return user;
  }

  /** `user` types `command text` in `channel` (an id, `#name` or name). */
  async slash(
    channel: string,
    user: string,
    text: string,
    command = '/traffic',
    options: DeliveryOptions = {},
  ): Promise<Delivery> {
    const ch = this.workspace.channel(channel);
    if (!ch) throw new Error(`no such channel: ${channel}`);
    if (ch.is_archived) throw new Error(`#${ch.name} is archived: nobody can run commands there`);
    return this.deliverer.slashCommand({ channel: ch, user: this.user(user), command, text }, options);
  }

  /** Clicks a button on `user`'s Home tab, or picks `value` in one of its selects: block_actions from their view of type `home`, as Slack sends it. */
  async clickHome(user: string, actionId: string, options: ClickOptions & { value?: string } = {}): Promise<Delivery> {
    const who = this.user(user);
    const home = this.workspace.home(who.id);
    if (!home) throw new Error(`${user} has no Home tab published`);
    const blocks = (Array.isArray(home.view.blocks) ? home.view.blocks : []) as Json[];
    const found = findElement(blocks, actionId, options.blockId);
    if (!found)
      throw new Error(`no element "${actionId}" on ${user}'s Home (action_ids: ${actionIdsOf(blocks).join(', ')})`);
    const id = String(home.view.id);
    const view = {
      ...home.view,
      id,
      type: 'home',
      blocks,
      team_id: this.workspace.team.id,
      title: null,
      submit: null,
      close: null,
      private_metadata: '',
      callback_id: '',
      external_id: '',
      hash: String(home.view.hash),
      clear_on_close: false,
      notify_on_close: false,
      state: { values: {} },
      root_view_id: id,
      previous_view_id: null,
      app_id: this.workspace.bot.appId,
      bot_id: this.workspace.bot.botId,
      user: who.id,
      open: true,
    } as unknown as View;
    return this.deliverer.blockActions({ user: who, actions: [this.action(found, options.value)], view }, options);
  }

  /** An Events API event from `user` (e.g. `app_home_opened`), with Slack's retries; every attempt. */
  event(
    type: string,
    user: string,
    fields: Record<string, unknown> = {},
    options: DeliveryOptions = {},
  ): Promise<Delivery[]> {
    return this.deliverer.event({ type, user: this.user(user).id, ...fields }, options);
  }

  /** An Events API event as given (no user added), with Slack's retries; every attempt. */
  deliverEvent(event: Record<string, unknown>, options: DeliveryOptions = {}): Promise<Delivery[]> {
    return this.deliverer.event(event, options);
  }

  /** Ends the deliverer's connections (the server's close calls it). */
  closeDeliveries(): Promise<void> {
    return this.deliverer.close();
  }

  /** Signs `body` as Slack signs what it sends the app (Slackbot's MCP calls included). */
  sign(body: string): SignatureHeaders {
    return this.deliverer.sign(body);
  }

  /** The `url_verification` check of the app's request URL. */
  urlVerification(challenge: string, options: DeliveryOptions = {}): Promise<Delivery> {
    return this.deliverer.urlVerification(challenge, options);
  }

  /** A person posts a plain message (for a UI, or to give the app something to thread under). */
  say(channel: string, user: string, text: string, threadTs?: string): Message {
    const ch = this.workspace.requireChannel(channel);
    if (ch.is_archived) throw new Error(`#${ch.name} is archived`);
    return this.workspace.post({ channel: ch.id, user: this.user(user).id, text, threadTs, via: 'user' });
  }

  /**
   * Clicks the element with `actionId` in a message or a modal: a button, or for an
   * overflow/select/radio/checkbox/date/user/channel element, picks `value` (a list for
   * multi-selects and checkboxes). In a modal's input block it needs the block's
   * `dispatch_action`, as in Slack; the view's state then holds the value.
   */
  async click(
    target: MessageRef | View,
    actionId: string,
    value?: string | string[],
    options: ClickOptions = {},
  ): Promise<Delivery> {
    if (isView(target)) {
      const view = this.workspace.view(target.id);
      if (!view || !view.open) throw new Error(`view ${target.id} is not open`);
      const found = findElement(view.blocks, actionId, options.blockId);
      if (!found)
        throw new Error(
          `no element "${actionId}" in view ${view.id} (action_ids: ${actionIdsOf(view.blocks).join(', ')})`,
        );
      // An input block's element reaches the app only with the block's dispatch_action ("Defaults to
      // false", https://docs.slack.dev/reference/block-kit/blocks/input-block); else its value waits for submit.
      if (found.input && found.input.dispatch_action !== true)
        throw new Error(
          `"${actionId}" is in input block "${found.blockId}" without dispatch_action: Slack sends no block_actions for it; pass its value to submit`,
        );
      const action = this.action(found, value);
      const { action_ts: _ts, block_id: _b, action_id: _a, text: _t, ...state } = action;
      if (found.element.type !== 'button' && found.element.type !== 'overflow') {
        this.workspace.setViewState(view.id, found.blockId, actionId, state);
      }
      return this.deliverer.blockActions({ user: this.user(view.user), actions: [action], view }, options);
    }
    const message = this.workspace.message(target.channel, target.ts);
    if (!message) throw new Error(`no message ${target.ts} in ${target.channel}`);
    const userId = options.user ?? message.ephemeralTo ?? message.invokedBy ?? 'U_ALICE';
    const user = this.user(userId);
    if (message.ephemeralTo && message.ephemeralTo !== user.id) {
      throw new Error(`message ${message.ts} is ephemeral to ${message.ephemeralTo}; ${user.id} cannot see it`);
    }
    const found = findElement(messageBlocks(message), actionId, options.blockId);
    if (!found)
      throw new Error(
        `no element "${actionId}" in message ${message.ts} (action_ids: ${actionIdsOf(messageBlocks(message)).join(', ')})`,
      );
    const action = this.action(found, value);
    const type = found.element.type;
    if (type !== 'button' && type !== 'overflow' && type !== 'workflow_button') {
      const { action_ts: _ts, block_id: _b, action_id: _a, ...state } = action;
      message.state[found.blockId] = { ...message.state[found.blockId], [actionId]: state };
    }
    return this.deliverer.blockActions({ user, actions: [action], message }, options);
  }

  /** Picks `optionValue` in a select (or overflow, radio buttons…) with `actionId`. */
  select(
    target: MessageRef | View,
    actionId: string,
    optionValue: string | string[],
    options: ClickOptions = {},
  ): Promise<Delivery> {
    return this.click(target, actionId, optionValue, options);
  }

  private action(found: FoundElement, value: string | string[] | undefined): Json {
    const el = found.element;
    const base: Json = {
      action_id: el.action_id,
      block_id: found.blockId,
      type: el.type,
      action_ts: actionTs(this.workspace.now()),
    };
    if (el.type === 'button' || el.type === 'workflow_button') {
      return {
        ...base,
        text: el.text,
        ...(el.value !== undefined ? { value: el.value } : {}),
        ...(el.style !== undefined ? { style: el.style } : {}),
        ...(el.url !== undefined ? { url: el.url } : {}),
      };
    }
    if (el.type === 'feedback_buttons' || el.type === 'icon_button') {
      return {
        ...base,
        ...(value !== undefined ? { value: single(value) } : el.value !== undefined ? { value: el.value } : {}),
      };
    }
    if (value === undefined && el.type !== 'overflow') {
      throw new Error(`"${String(el.action_id)}" is a ${String(el.type)}: pass the value to pick`);
    }
    if (value === undefined) throw new Error(`"${String(el.action_id)}" is an overflow menu: pass the option value`);
    return { ...base, ...stateValue(el, value), type: el.type };
  }

  /**
   * Submits the modal: `values` by action_id for its input blocks (a list for multi-selects
   * and checkboxes). Inputs not given keep their initial value. A required input left empty
   * throws, as Slack's client would not send the submission.
   */
  async submit(target: View | string, values: SubmitValues = {}, options: DeliveryOptions = {}): Promise<Delivery> {
    const view = this.workspace.view(typeof target === 'string' ? target : target.id);
    if (!view || !view.open) throw new Error(`view ${typeof target === 'string' ? target : target.id} is not open`);
    const stack = this.workspace.openViews(view.user);
    if (stack[stack.length - 1]?.id !== view.id) throw new Error(`view ${view.id} is not the one on top`);
    const known = new Set<string>();
    const stateValues: Record<string, Record<string, Json>> = JSON.parse(JSON.stringify(view.state.values)) as Record<
      string,
      Record<string, Json>
    >;
    for (const block of view.blocks) {
      if (block.type !== 'input' || !isRecord(block.element)) continue;
      const el = block.element;
      const actionId = String(el.action_id);
      const blockId = String(block.block_id);
      known.add(actionId);
      known.add(blockId);
      // Slack's state is keyed by block, then action: inputs in different blocks may share an action_id.
      const given = Object.hasOwn(values, blockId) ? values[blockId] : values[actionId];
      const previous = stateValues[blockId]?.[actionId];
      const state = given === undefined && previous ? previous : stateValue(el, given);
      if (block.optional !== true && isEmptyState(state)) {
        throw new Error(`input "${blockId}" (${actionId}) is required: Slack would not submit the modal`);
      }
      if (el.type === 'plain_text_input' && typeof state.value === 'string') {
        const len = [...state.value].length;
        if (typeof el.min_length === 'number' && len < el.min_length)
          throw new Error(`input "${actionId}" needs at least ${el.min_length} characters`);
        if (typeof el.max_length === 'number' && len > el.max_length)
          throw new Error(`input "${actionId}" allows at most ${el.max_length} characters`);
      }
      stateValues[blockId] = { ...stateValues[blockId], [actionId]: state };
    }
    for (const key of Object.keys(values)) {
      if (!known.has(key)) throw new Error(`view ${view.id} has no input "${key}" (inputs: ${[...known].join(', ')})`);
    }
    view.state = { values: stateValues };
    delete view.errors;
    return this.deliverer.viewSubmission({ view, user: this.user(view.user) }, options);
  }

  /** The user closes (cancels) the modal: view_closed goes to the app when it asked with notify_on_close. */
  async closeView(target: View | string, options: DeliveryOptions = {}): Promise<Delivery | undefined> {
    const view = this.workspace.view(typeof target === 'string' ? target : target.id);
    if (!view || !view.open) throw new Error('view is not open');
    const closed = this.workspace.closeView(view.id, { all: view.clear_on_close });
    if (!view.notify_on_close) return undefined;
    return this.deliverer.viewClosed(
      { view, user: this.user(view.user), isCleared: closed.length > 1 || view.clear_on_close },
      options,
    );
  }

  // ---- what people see ---------------------------------------------------------------

  /** What `user` sees in the channel: its messages plus their own ephemerals, oldest first. */
  messages(channel: string, options: { user?: string } = {}): Message[] {
    const user = options.user ? this.user(options.user).id : undefined;
    return this.workspace.visibleMessages(channel, user);
  }

  /** A thread: the parent, then its replies. */
  thread(channel: string, ts: string, options: { user?: string } = {}): Message[] {
    const user = options.user ? this.user(options.user).id : undefined;
    return this.workspace.thread(channel, ts, user);
  }

  /** The user's open modals, bottom first (the visible one is last). */
  openViews(user: string): View[] {
    return this.workspace.openViews(this.user(user).id);
  }

  /** The newest message `user` sees in the channel (without a user: the newest public one). */
  lastMessage(channel: string, user?: string): Message | undefined {
    const all = this.messages(channel, user ? { user } : {});
    return all[all.length - 1];
  }

  /**
   * Resolves with the first truthy value of `predicate`, checked now and after every
   * workspace change; rejects after `timeoutMs` (long enough for a loaded machine: it only
   * costs time when the condition is never met).
   */
  waitFor<T>(predicate: (change?: WorkspaceChange) => T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
    const first = predicate();
    if (first) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const onChange = (change: WorkspaceChange): void => {
        let result: T | undefined | null | false;
        try {
          result = predicate(change);
        } catch (error) {
          cleanup();
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (result) {
          cleanup();
          resolve(result);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`waitFor: condition not met within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.workspace.off('change', onChange);
      };
      this.workspace.on('change', onChange);
    });
  }

  /**
   * Resolves with the newest message in the channel (ephemerals and thread replies
   * included) that matches, waiting for one to arrive or change.
   */
  waitForMessage(channel: string, predicate: (m: Message) => boolean, timeoutMs = 30_000): Promise<Message> {
    return this.waitFor(() => {
      const all = this.workspace.allMessages(channel);
      for (let i = all.length - 1; i >= 0; i--) {
        const m = all[i];
        if (m && predicate(m)) return m;
      }
      return undefined;
    }, timeoutMs);
  }
}
