import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { RULES_DOC, rulesMarkdown } from '../../src/slack-rules/doc.js';

it("docs/slack-rules.md is what Slack's rules table says (npm run docs:rules writes it)", () => {
  expect(readFileSync(RULES_DOC, 'utf8')).toBe(rulesMarkdown());
});
