/**
 * Every test fails when Lookout had to fit a payload to Slack's rules (or could not):
 * what it builds must already keep them. A test that plants a violation on purpose takes
 * the reports it expects with takePreflightReports().
 */
import { subscribe } from 'node:diagnostics_channel';
import { afterEach, expect } from 'vitest';
import { PREFLIGHT_CHANNEL, type PreflightReport } from '../../src/platform/slack/preflight-gate.js';

const reports: PreflightReport[] = [];
subscribe(PREFLIGHT_CHANNEL, (r) => reports.push(r as PreflightReport));

/** The reports so far, taken (so afterEach does not fail on them). */
export function takePreflightReports(): PreflightReport[] {
  return reports.splice(0);
}

afterEach(() => {
  const left = takePreflightReports();
  expect(left, "payloads that broke a rule of Slack's before they left").toEqual([]);
});
