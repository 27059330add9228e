// @ts-check
// The confirm dialog Slack shows before a button or menu with a `confirm` object acts.
import { plain } from './block-values.js';
import { el, nextId } from './dom.js';
import { renderPlain, renderText } from './mrkdwn.js';

/** @import { Json, RenderContext } from './types.js' */

/**
 * A confirm dialog (the `confirm` object on buttons and menus). Resolves true to go ahead.
 * @param {Json} confirm
 * @param {RenderContext} [ctx]
 */
export function confirmDialog(confirm, ctx = {}) {
  return new Promise((resolve) => {
    const backdrop = el('div', 'backdrop confirm-backdrop');
    const box = el('div', 'dialog confirm');
    box.setAttribute('role', 'alertdialog');
    box.setAttribute('aria-modal', 'true');
    box.dataset.testid = 'confirm-dialog';
    const title = renderPlain(confirm.title ?? 'Are you sure?', 'h2');
    title.id = nextId('confirm-title');
    box.setAttribute('aria-labelledby', title.id);
    const body = el('div', 'dialog-body');
    body.append(renderText(confirm.text ?? { type: 'plain_text', text: '' }, ctx.text));
    const footer = el('div', 'dialog-footer');
    const deny = el('button', 'btn', plain(confirm.deny) || 'Cancel');
    deny.type = 'button';
    deny.dataset.testid = 'confirm-cancel';
    const ok = el(
      'button',
      `btn ${confirm.style === 'danger' ? 'btn-danger' : 'btn-primary'}`,
      plain(confirm.confirm) || 'Yes',
    );
    ok.type = 'button';
    ok.dataset.testid = 'confirm-ok';
    footer.append(deny, ok);
    box.append(title, body, footer);
    backdrop.append(box);
    /**
     * @param {any} answer
     */
    const done = (answer) => {
      document.removeEventListener('keydown', onKey, true);
      backdrop.remove();
      resolve(answer);
    };
    /**
     * @param {any} e
     */
    const onKey = (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        done(false);
      }
    };
    document.addEventListener('keydown', onKey, true);
    deny.addEventListener('click', () => done(false));
    ok.addEventListener('click', () => done(true));
    backdrop.addEventListener('click', (e) => {
      if (e.target === backdrop) done(false);
    });
    document.body.append(backdrop);
    ok.focus();
  });
}
