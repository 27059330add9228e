/** Slack's alert block: a callout coloured by its level, for verdicts and severities. */
import type { AlertBlock } from '@slack/types';
import { LIMITS, mrkdwn } from './limits.js';

export type CalloutLevel = NonNullable<AlertBlock['level']>;

/** `text` is mrkdwn, already escaped. The level is said in words in the text too, for clients that draw no colour. */
export function callout(text: string, level: CalloutLevel): AlertBlock {
  return { type: 'alert', level, text: mrkdwn(text, LIMITS.alertText) };
}

const VERDICT_LEVELS: Record<string, CalloutLevel> = { Threat: 'error', Suspicious: 'warning', Human: 'success', Unknown: 'info' };
const SEVERITY_LEVELS: Record<string, CalloutLevel> = { high: 'error', medium: 'warning', low: 'info' };

export function verdictLevel(verdict: string): CalloutLevel {
  return VERDICT_LEVELS[verdict] ?? 'default';
}

export function severityLevel(severity: string): CalloutLevel {
  return SEVERITY_LEVELS[severity] ?? 'default';
}
