/**
 * Escapes text from outside (the API, a person) for mrkdwn: exactly `&`, `<`
 * and `>`, so that `<!channel>` or `<https://x|click>` in a campaign name is
 * shown, never acted on. Nothing else is entity-encoded.
 */
import { code } from '../../../kernel/text.js';

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text from outside as an inline code span in mrkdwn, escaped. */
export function mrkdwnCode(text: string, max = 128): string {
  return escapeMrkdwn(code(text, max));
}
