import type { ReportQuery } from '../../src/kernel/query.js';
import type { DateRange } from '../../src/kernel/dates.js';
import type { AggregateRow } from '../../src/platform/api/schemas.js';

export function parse(text: string): ReportQuery | undefined;
export function split(text: string): ReportQuery;
export function range(query: ReportQuery, now: Date): DateRange;
export function render(query: ReportQuery, dates: DateRange, rows: readonly AggregateRow[], now: Date): object;
export function check(message: object): object;
