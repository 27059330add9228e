/**
 * Escapes text from outside (the API, a person) for mrkdwn: exactly `&`, `<`
 * and `>`, so that `<!channel>` or `<https://x|click>` in a campaign name is
 * shown, never acted on. Nothing else is entity-encoded.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inline code from outside: escaped, backticks replaced so they cannot close the span. */
export function code(text: string): string {
  return `\`${escapeMrkdwn(text).replace(/`/g, 'ˋ')}\``;
}
