import { DEFAULT_FILTER_FIELD, type FilterGroup } from '../../../kernel/filters.js';
import { mrkdwnCode } from './escape.js';

/** `country is Germany or France and page contains /blog — or — browser is Firefox`, escaped. */
export function describeFilters(groups: readonly FilterGroup[]): string {
  const described = groups
    .filter((g) => g.filters.length > 0)
    .map((g) =>
      g.filters
        .map((f) => {
          const what = f.field === DEFAULT_FILTER_FIELD ? f.object : `${f.object} ${f.field}`;
          const values = Array.isArray(f.value) ? f.value : [f.value];
          const shown = values.map((v) => mrkdwnCode(v, 60)).join(' or ');
          return `${what} ${f.operator === 'contains' ? 'contains' : 'is'} ${shown}`;
        })
        .join(' and '),
    );
  return described.join(' *or* ');
}
