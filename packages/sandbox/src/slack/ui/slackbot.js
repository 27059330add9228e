// @ts-check
// The Slackbot panel: Slackbot's side of the app's MCP server, without a language model. The
// person picks one of the app's tools (tools/list), fills its arguments from its input schema,
// and asks; the offline Slack calls the tool signed as Slack signs, as this person
// (slackbot.ts), and the answer is drawn as Slackbot draws it: its blocks, else its text, and
// an error answer as an error line.
import { renderBlocks } from './blocks.js';
import { $, el, nextId, toast } from './dom.js';
import { renderMrkdwn } from './mrkdwn.js';
import { api, avatar, displayName, state, textCtx } from './state.js';

/** @import { Json, RenderContext, SlackbotAnswer, SlackbotTool } from './types.js' */

/** @type {{ tools: SlackbotTool[], busy: boolean }} */
const panel = { tools: [], busy: false };

// ---- the form ---------------------------------------------------------------------------

/**
 * A property's JSON type, the first that is not null (`["string", "null"]` is a string).
 * @param {Json} schema
 * @returns {string}
 */
function typeOf(schema) {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (typeof type === 'string') return type;
  const choice = (schema.anyOf ?? schema.oneOf ?? []).find((/** @type {Json} */ s) => s.type && s.type !== 'null');
  return choice ? typeOf(choice) : 'json';
}

/**
 * The enum of a property, if it is one (also an enum under anyOf, as optional enums are written).
 * @param {Json} schema
 * @returns {unknown[] | undefined}
 */
function enumOf(schema) {
  if (Array.isArray(schema.enum)) return schema.enum;
  const choice = (schema.anyOf ?? schema.oneOf ?? []).find((/** @type {Json} */ s) => Array.isArray(s.enum));
  return choice?.enum;
}

/**
 * One field for one property: enum → select, number → number input, boolean → select, string →
 * text; anything else → text read as JSON. Its description is its hint.
 * @param {string} name
 * @param {Json} schema
 * @param {boolean} required
 */
function field(name, schema, required) {
  const id = nextId('slackbot-arg');
  const wrap = el('div', 'slackbot-field');
  wrap.dataset.testid = 'slackbot-field';
  wrap.dataset.arg = name;
  const label = el('label', 'slackbot-label', name);
  label.htmlFor = id;
  if (required) label.append(el('span', 'slackbot-required', ' (required)'));
  const type = typeOf(schema);
  const choices = enumOf(schema) ?? (type === 'boolean' ? [true, false] : undefined);
  /** @type {HTMLInputElement | HTMLSelectElement} */
  let input;
  if (choices) {
    const select = el('select', 'select slackbot-input');
    if (!required) select.append(Object.assign(el('option', null, '—'), { value: '' }));
    for (const choice of choices)
      select.append(Object.assign(el('option', null, String(choice)), { value: String(choice) }));
    if (schema.default !== undefined) select.value = String(schema.default);
    else if (required && choices.length > 0) select.value = String(choices[0]);
    input = select;
  } else {
    const text = el('input', 'text-input slackbot-input');
    if (type === 'number' || type === 'integer') {
      text.type = 'number';
      text.step = type === 'integer' ? '1' : 'any';
      if (typeof schema.minimum === 'number') text.min = String(schema.minimum);
      if (typeof schema.maximum === 'number') text.max = String(schema.maximum);
    } else text.type = 'text';
    if (schema.default !== undefined)
      text.value =
        type === 'json' || typeof schema.default === 'object' ? JSON.stringify(schema.default) : String(schema.default);
    if (type === 'json' || type === 'array' || type === 'object') text.placeholder = 'JSON';
    input = text;
  }
  input.id = id;
  input.name = name;
  input.dataset.type = choices && type !== 'boolean' ? 'enum' : type;
  input.required = required;
  wrap.append(label, input);
  if (typeof schema.description === 'string') {
    const hint = el('div', 'slackbot-hint', schema.description);
    hint.id = `${id}-hint`;
    input.setAttribute('aria-describedby', hint.id);
    wrap.append(hint);
  }
  return wrap;
}

/** @param {SlackbotTool | undefined} tool */
function renderForm(tool) {
  const fields = $('slackbot-fields');
  fields.replaceChildren();
  $('slackbot-description').textContent = tool?.description ?? '';
  if (!tool) return;
  const properties = /** @type {Record<string, Json>} */ (tool.inputSchema?.properties ?? {});
  const required = new Set(Array.isArray(tool.inputSchema?.required) ? tool.inputSchema.required : []);
  for (const [name, schema] of Object.entries(properties)) fields.append(field(name, schema ?? {}, required.has(name)));
}

/**
 * The arguments as typed: empty fields left out, numbers as numbers, booleans as booleans.
 * @returns {Json}
 */
function argumentsOf() {
  /** @type {Json} */
  const args = {};
  for (const input of /** @type {NodeListOf<HTMLInputElement | HTMLSelectElement>} */ (
    $('slackbot-fields').querySelectorAll('.slackbot-input')
  )) {
    const raw = input.value.trim();
    if (raw === '') continue;
    const type = input.dataset.type;
    if (type === 'number' || type === 'integer') args[input.name] = Number(raw);
    else if (type === 'boolean') args[input.name] = raw === 'true';
    else if (type === 'json' || type === 'array' || type === 'object') {
      try {
        args[input.name] = JSON.parse(raw);
      } catch {
        throw new Error(`${input.name}: not JSON`);
      }
    } else args[input.name] = raw;
  }
  return args;
}

// ---- the conversation -------------------------------------------------------------------

/**
 * @param {string} who
 * @param {Node} body
 */
function entry(who, body) {
  const node = el('div', 'message slackbot-entry');
  const main = el('div', 'message-main');
  const head = el('div', 'message-head');
  head.append(el('span', 'author', displayName(who)));
  if (who === state.workspace.slackbot) head.append(el('span', 'app-badge', 'APP'));
  main.append(head, body);
  node.append(avatar(who), main);
  const log = $('slackbot-log');
  log.append(node);
  log.scrollTop = log.scrollHeight;
  return node;
}

/**
 * @param {string} tool
 * @param {Json} args
 */
function askLine(tool, args) {
  const line = el('div', 'slackbot-ask');
  line.append(el('code', null, tool));
  const shown = Object.entries(args).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (shown.length > 0) line.append(el('span', null, ` · ${shown.join(', ')}`));
  return line;
}

/** @param {string} text */
function errorLine(text) {
  const line = el('div', 'slackbot-error', text);
  line.dataset.testid = 'slackbot-error';
  line.setAttribute('role', 'alert');
  return line;
}

/** @param {SlackbotAnswer} answer */
function answerNode(answer) {
  const body = el('div', 'message-body');
  if (answer.is_error) {
    body.append(errorLine(answer.text || 'The tool answered with an error and no text.'));
    return body;
  }
  /** @type {RenderContext} */
  const ctx = {
    surface: 'message',
    text: textCtx,
    users: state.workspace.users.filter((u) => !u.is_bot),
    channels: state.workspace.channels,
    state: {},
    // Slack's pages do not say where actions in Slackbot's answers go: the sandbox sends them nowhere.
    onAction: () => toast('Slackbot shows this answer only: its buttons send nothing to the app here.', 'info'),
  };
  if (answer.blocks && answer.blocks.length > 0) body.append(renderBlocks(answer.blocks, ctx));
  else body.append(renderMrkdwn(answer.text, textCtx, 'div'));
  if (answer.problems.length > 0) {
    const note = el('div', 'slackbot-problems', `Against Slack's rules for a message: ${answer.problems.join('; ')}`);
    note.dataset.testid = 'slackbot-problems';
    body.append(note);
  }
  return body;
}

async function ask() {
  if (panel.busy) return;
  const tool = panel.tools.find((t) => t.name === $('slackbot-tool').value);
  if (!tool) return;
  /** @type {Json} */
  let args;
  try {
    args = argumentsOf();
  } catch (error) {
    toast(error.message);
    return;
  }
  panel.busy = true;
  const button = $('slackbot-ask');
  button.classList.add('busy');
  entry(state.user, askLine(tool.name, args));
  try {
    const { answer } = await api('POST', '/ui/slackbot/call', { user: state.user, tool: tool.name, arguments: args });
    const node = entry(state.workspace.slackbot, answerNode(/** @type {SlackbotAnswer} */ (answer)));
    node.dataset.testid = 'slackbot-answer';
  } catch (error) {
    const node = entry(state.workspace.slackbot, errorLine(`Could not ask ${tool.name}: ${error.message}`));
    node.dataset.testid = 'slackbot-answer';
  } finally {
    panel.busy = false;
    button.classList.remove('busy');
  }
}

// ---- open and close ---------------------------------------------------------------------

async function loadTools() {
  const select = $('slackbot-tool');
  const before = select.value;
  $('slackbot-status').textContent = 'Asking the app for its tools…';
  try {
    const { tools, url } = await api('GET', `/ui/slackbot/list?user=${encodeURIComponent(state.user)}`);
    panel.tools = /** @type {SlackbotTool[]} */ (tools);
    $('slackbot-status').textContent = `${panel.tools.length} tools at ${url}`;
  } catch (error) {
    panel.tools = [];
    $('slackbot-status').textContent = `No tools: ${error.message}`;
  }
  select.replaceChildren(
    ...panel.tools.map((t) => {
      const option = el('option', null, t.title ? `${t.title} (${t.name})` : t.name);
      option.value = t.name;
      return option;
    }),
  );
  if (panel.tools.some((t) => t.name === before)) select.value = before;
  $('slackbot-ask').disabled = panel.tools.length === 0;
  renderForm(panel.tools.find((t) => t.name === select.value));
}

function close() {
  $('slackbot-panel').hidden = true;
  $('slackbot-open').removeAttribute('aria-current');
}

/** The sidebar's Slackbot entry opens the panel (and asks the app for its tools again). */
export function setupSlackbot() {
  $('slackbot-open').addEventListener('click', () => {
    $('slackbot-panel').hidden = false;
    $('slackbot-open').setAttribute('aria-current', 'page');
    void loadTools();
  });
  $('slackbot-close').addEventListener('click', close);
  $('slackbot-tool').addEventListener('change', () =>
    renderForm(panel.tools.find((t) => t.name === $('slackbot-tool').value)),
  );
  $('slackbot-form').addEventListener('submit', (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    void ask();
  });
}
