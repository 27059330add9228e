/**
 * The one path by which text from outside (API data, API error text, what a person
 * typed) reaches Slack: disguising characters removed (see neutralize), then exactly
 * `&`, `<` and `>` escaped, so that `<!channel>` or `<https://x|click>` in a campaign
 * name is shown, never acted on. plain_text and table cells get the first step
 * (see limits.ts); mrkdwn, and every message's top-level `text`, get both.
 */
import { code, neutralize } from '../../../kernel/text.js';
import { clipMrkdwn, LIMITS } from './limits.js';

export function escapeMrkdwn(text: string): string {
  return neutralize(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A message's top-level `text` (notifications, screen readers, clients without blocks)
 * from plain words: Slack reads it as mrkdwn, so it is escaped like any block.
 */
export function fallbackText(plain: string, max: number = LIMITS.sectionText): string {
  return clipMrkdwn(escapeMrkdwn(plain), max);
}

/** Text from outside as an inline code span in mrkdwn, escaped. */
export function mrkdwnCode(text: string, max = 128): string {
  return escapeMrkdwn(code(text, max));
}
