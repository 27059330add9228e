// @ts-check
// The open modal views: drawn, submitted and closed.
import { inputValues, isEmptyValue } from './block-values.js';
import { renderBlocks } from './blocks.js';
import { $, el, toast } from './dom.js';
import { api, sendAction, state, textCtx } from './state.js';

/** @import { Json, RenderContext, View } from './types.js' */

/**
 * @param {View[]} stack
 */
export function setViews(stack) {
  const open = new Set(stack.map((v) => v.id));
  for (const id of state.drafts.keys()) if (!open.has(id)) state.drafts.delete(id);
  state.views = stack;
  renderModal();
}

export function renderModal() {
  const root = $('modal-root');
  const view = state.views.at(-1);
  if (!view) {
    root.hidden = true;
    root.replaceChildren();
    return;
  }
  // Where the person was typing, to put the caret back after the view is drawn anew.
  const active = /** @type {HTMLInputElement | null} */ (
    root.contains(document.activeElement) ? document.activeElement : null
  );
  const holder = /** @type {HTMLElement | null | undefined} */ (active?.closest('[data-block-id]'));
  const refocus =
    active && holder
      ? {
          block: holder.dataset.blockId ?? '',
          caret: typeof active.selectionStart === 'number' ? active.selectionStart : null,
        }
      : null;
  const draft = state.drafts.get(view.id) ?? {};
  state.drafts.set(view.id, draft);
  const errors = { ...view.errors };

  const dialog = el('div', 'dialog modal');
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.dataset.testid = 'modal';
  dialog.dataset.viewId = view.id;

  const header = el('header', 'modal-header');
  if (state.views.length > 1) {
    const back = el('button', 'btn-icon', '‹');
    back.type = 'button';
    back.setAttribute('aria-label', 'Back');
    back.addEventListener('click', () => closeView(view));
    header.append(back);
  }
  const title = el('h2', 'modal-title', view.title?.text ?? '');
  title.id = `modal-title-${view.id}`;
  dialog.setAttribute('aria-labelledby', title.id);
  const close = el('button', 'btn-icon close', '×');
  close.type = 'button';
  close.dataset.testid = 'modal-close';
  close.setAttribute('aria-label', 'Close');
  close.addEventListener('click', () => closeView(view));
  header.append(el('span', 'modal-app', 'L'), title, close);

  /** @type {RenderContext} */

  const ctx = {
    surface: 'modal',
    text: textCtx,
    users: state.workspace.users.filter((u) => !u.is_bot),
    channels: state.workspace.channels,
    state: view.state?.values ?? {},
    draft,
    errors,
    onInput: (blockId) => {
      const block = dialog.querySelector(`[data-block-id="${CSS.escape(blockId)}"]`);
      block?.classList.remove('has-error');
      const error = /** @type {HTMLElement | null | undefined} */ (block?.querySelector('.input-error'));
      if (error) error.hidden = true;
    },
    onAction: (element, blockId, value) =>
      sendAction({ view_id: view.id, block_id: blockId, action_id: element.action_id, value }),
  };
  const body = el('div', 'modal-body');
  body.append(renderBlocks(view.blocks, ctx));
  const problem = el('div', 'modal-problem');
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  body.append(problem);

  const footer = el('footer', 'modal-footer');
  const cancel = el('button', 'btn', view.close?.text ?? (view.submit ? 'Cancel' : 'Close'));
  cancel.type = 'button';
  cancel.dataset.testid = 'modal-cancel';
  cancel.addEventListener('click', () => closeView(view));
  footer.append(cancel);
  if (view.submit) {
    const submit = el('button', 'btn btn-primary', view.submit.text ?? 'Submit');
    submit.type = 'submit';
    submit.dataset.testid = 'modal-submit';
    footer.append(submit);
  }
  const form = el('form', 'modal-form');
  form.noValidate = true;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submitView(view, ctx, form, problem);
  });
  form.append(header, body, footer);
  dialog.append(form);
  root.replaceChildren(dialog);
  root.hidden = false;
  /** @type {HTMLInputElement | null} */
  const again =
    refocus && dialog.querySelector(`[data-block-id="${CSS.escape(refocus.block)}"] :is(input, textarea, select)`);
  /** @type {HTMLInputElement | null} */
  const firstError = dialog.querySelector('.has-error input, .has-error textarea, .has-error select');
  if (firstError) {
    firstError.focus();
    firstError.scrollIntoView({ block: 'center' });
  } else if (again && refocus) {
    again.focus();
    if (
      refocus.caret !== null &&
      typeof again.setSelectionRange === 'function' &&
      /^(text|search|url|email|textarea)$/.test(again.type ?? '')
    ) {
      again.setSelectionRange(refocus.caret, refocus.caret);
    }
  } else if (!root.contains(document.activeElement)) {
    /** @type {HTMLElement | null} */
    const field = dialog.querySelector('input, textarea, select');
    (field ?? close).focus();
  }
}

/**
 * @param {View} view
 * @param {RenderContext} ctx
 * @param {HTMLFormElement} form
 * @param {HTMLElement} problem
 */
export async function submitView(view, ctx, form, problem) {
  /** @type {HTMLButtonElement | null} */
  const submit = form.querySelector('[data-testid="modal-submit"]');
  /** @type {Json} */
  const values = {};
  let missing = false;
  for (const { block, actionId, value } of inputValues(view.blocks, ctx)) {
    if (!block.optional && isEmptyValue(value)) {
      missing = true;
      const node = form.querySelector(`[data-block-id="${CSS.escape(block.block_id)}"]`);
      node?.classList.add('has-error');
      const error = /** @type {HTMLElement | null | undefined} */ (node?.querySelector('.input-error'));
      if (error) {
        error.textContent = 'Please complete this required field.';
        error.hidden = false;
      }
    }
    const drafted = ctx.draft?.[block.block_id]?.[actionId];
    // By block: inputs in different blocks may share an action_id.
    if (drafted !== undefined) values[block.block_id] = drafted;
  }
  if (missing) return;
  submit?.classList.add('busy');
  if (submit) submit.disabled = true;
  problem.hidden = true;
  try {
    const { delivery } = await api('POST', '/ui/submit', { user: state.user, view_id: view.id, values });
    if (delivery?.error) {
      problem.textContent = `We had some trouble connecting (${delivery.error}${delivery.reasons?.length ? `: ${delivery.reasons.join('; ')}` : ''}). Try again?`;
      problem.hidden = false;
    }
  } catch (error) {
    problem.textContent = error.message;
    problem.hidden = false;
  } finally {
    submit?.classList.remove('busy');
    if (submit) submit.disabled = false;
  }
}

/**
 * @param {View} view
 */
export async function closeView(view) {
  try {
    await api('POST', '/ui/close-view', { user: state.user, view_id: view.id });
  } catch (error) {
    // Already closed on the server: drop it here too.
    setViews(state.views.filter((v) => v.id !== view.id));
    if (!/view_not_found/.test(error.data?.error ?? '')) toast(error.message);
  }
}
