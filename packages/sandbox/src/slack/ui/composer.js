// @ts-check
// The composer: what it suggests as a person types, and sending.
import { $, el, toast } from './dom.js';
import { closeThread } from './messages.js';
import { api, state } from './state.js';

/** @import { Json, Suggestion, Suggestions } from './types.js' */

/** What the app suggests (GET /ui/suggestions.json): its commands, their words, and examples. */
/** @type {Suggestions} */
let suggestions = { commands: [], examples: [] };

/**
 * The command a text starts with (`/traffic sources` → /traffic's suggestions), if the app has it.
 * @param {string} name
 */
function commandOf(name) {
  return suggestions.commands.find((c) => c.command === name.toLowerCase());
}

/**
 * @param {string} text
 */
export function suggestionsFor(text) {
  if (/^\/\S*$/.test(text)) {
    return suggestions.commands
      .filter((c) => c.command.startsWith(text.toLowerCase()))
      .map((c) => ({
        label: c.command,
        detail: c.hint,
        description: c.description,
        insert: `${c.command} `,
        command: true,
      }));
  }
  let m = /^(\/\S+)\s+(\S*)$/.exec(text);
  const first = m && commandOf(m[1]);
  if (m && first) {
    const typed = m[2];
    return (first.words ?? [])
      .filter((w) => w.word.startsWith(typed.toLowerCase()))
      .map((w) => ({ label: w.word, detail: w.detail, insert: `${first.command} ${w.word} `, word: typed }));
  }
  m = /^(\/\S+)\s+(\S+)\s+(\S*)$/.exec(text);
  const second = m && commandOf(m[1]);
  if (m && second) {
    const [, , word, typed] = m;
    const next = second.words?.find((w) => w.word === word.toLowerCase())?.next;
    if (!next) return [];
    return next.words
      .filter((w) => w.startsWith(typed.toLowerCase()))
      .map((w) => ({ label: w, detail: next.detail, insert: `${second.command} ${word} ${w} `, word: typed }));
  }
  return [];
}

/** @type {{ items: Suggestion[]; index: number }} */
export const composer = { items: [], index: 0 };

export function updateSuggestions() {
  const input = $('composer-input');
  const text = input.value;
  const list = $('suggestions');
  composer.items = text.includes('\n') ? [] : suggestionsFor(text);
  composer.index = Math.min(composer.index, Math.max(0, composer.items.length - 1));
  list.replaceChildren();
  composer.items.forEach((item, i) => {
    const li = el('li', `suggestion${i === composer.index ? ' active' : ''}`);
    li.setAttribute('role', 'option');
    li.setAttribute('aria-selected', String(i === composer.index));
    li.dataset.testid = 'suggestion';
    li.append(el('span', 'suggestion-label', item.label));
    if (item.detail) li.append(el('span', 'suggestion-detail', item.detail));
    if (item.description) li.append(el('span', 'suggestion-description', item.description));
    li.addEventListener('mousedown', (e) => {
      e.preventDefault();
      accept(i);
    });
    list.append(li);
  });
  list.hidden = composer.items.length === 0;
  const command = suggestions.commands.find((c) => text.toLowerCase().startsWith(`${c.command} `));
  $('composer-hint').textContent = command && composer.items.length === 0 ? `${command.command} ${command.hint}` : '';
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, 160)}px`;
}

/**
 * @param {number} i
 */
export function accept(i) {
  const item = composer.items[i];
  if (!item) return;
  const input = $('composer-input');
  input.value = item.insert;
  composer.index = 0;
  input.focus();
  updateSuggestions();
}

/**
 * @param {string} text
 * @param {string} [threadTs]
 */
export async function send(text, threadTs) {
  /** @type {Json} */
  const body = { channel: state.channel, user: state.user, text };
  if (threadTs) body.thread_ts = threadTs;
  return api('POST', '/ui/command', body);
}

export async function sendComposer() {
  const input = $('composer-input');
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  updateSuggestions();
  const hint = $('composer-hint');
  const isCommand = text.startsWith('/');
  if (isCommand) hint.textContent = `Running ${text.split(/\s+/)[0]}…`;
  try {
    await send(text);
    if (isCommand && hint.textContent.startsWith('Running')) hint.textContent = '';
  } catch (error) {
    input.value = text;
    updateSuggestions();
    hint.textContent = error.message;
    hint.classList.add('error');
    setTimeout(() => hint.classList.remove('error'), 4000);
  }
}

/**
 * Wires the composer and the thread's reply box; `given` is what the app suggests.
 * @param {Suggestions} given
 */
export function setupComposer(given) {
  suggestions = given;
  const input = $('composer-input');
  input.addEventListener('input', () => {
    composer.index = 0;
    updateSuggestions();
  });
  input.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
    const open = composer.items.length > 0;
    if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      const n = composer.items.length;
      composer.index = (composer.index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
      updateSuggestions();
    } else if (open && e.key === 'Tab') {
      e.preventDefault();
      accept(composer.index);
    } else if (open && e.key === 'Escape') {
      composer.items = [];
      $('suggestions').hidden = true;
    } else if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      const item = composer.items[composer.index];
      // Enter sends once what is typed is already the suggestion (a whole command like /visitor, or a finished word).
      const typed = input.value.trim().toLowerCase();
      const complete =
        item &&
        (typed === String(item.label).trim().toLowerCase() ||
          (!item.command && item.word?.toLowerCase() === item.label.toLowerCase()));
      if (open && item && !complete) accept(composer.index);
      else void sendComposer();
    }
  });
  $('composer').addEventListener('submit', (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    void sendComposer();
  });
  const examples = $('examples');
  examples.append(el('span', 'examples-label', 'Try'));
  for (const text of suggestions.examples) {
    const chip = el('button', 'example', text);
    chip.type = 'button';
    chip.dataset.testid = 'example';
    chip.addEventListener('click', () => {
      input.value = text;
      updateSuggestions();
      input.focus();
    });
    examples.append(chip);
  }

  const reply = $('thread-input');
  const sendReply = async () => {
    const text = reply.value.trim();
    if (!text || !state.thread) return;
    reply.value = '';
    try {
      await send(text, state.thread.ts);
    } catch (error) {
      reply.value = text;
      toast(error.message);
    }
  };
  reply.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void sendReply();
    }
  });
  $('thread-composer').addEventListener('submit', (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    void sendReply();
  });
  $('thread-close').addEventListener('click', closeThread);
}
