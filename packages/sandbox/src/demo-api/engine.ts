/**
 * Runs a ReportQuery against the data set: date range → filters → rows →
 * sort → page. Built and sorted rows are kept in a small LRU cache, cleared
 * whenever the data set changes (its version moves).
 */

import { buildRows, paginate, sortRows, type ReportRow } from './aggregate.js';
import type { Dataset } from './dataset.js';
import { matchesGroups } from './filters.js';
import { LRUCache } from 'lru-cache';
import type { VisitEntry } from './model.js';
import type { ReportQuery } from './request.js';

/** JSON of immutable records and rows, cached per object. */
const jsonCache = new WeakMap<object, string>();
function jsonOf(row: object): string {
  let json = jsonCache.get(row);
  if (json === undefined) {
    json = JSON.stringify(row);
    jsonCache.set(row, json);
  }
  return json;
}

export class ReportEngine {
  private readonly cache: LRUCache<string, readonly ReportRow[]>;
  /** Whole pages as JSON text: a repeated page (benchmarks, retries) costs no serialisation. */
  private readonly pages: LRUCache<string, string>;
  private cachedVersion: number;

  constructor(
    private readonly dataset: Dataset,
    cacheSize = 64,
  ) {
    this.cache = new LRUCache({ max: cacheSize });
    this.pages = new LRUCache({ max: Math.max(1, Math.ceil(cacheSize / 4)) });
    this.cachedVersion = dataset.version;
  }

  private checkVersion(): void {
    if (this.dataset.version !== this.cachedVersion) {
      this.cache.clear();
      this.pages.clear();
      this.cachedVersion = this.dataset.version;
    }
  }

  /** The whole sorted result of the query (every page). */
  rows(query: ReportQuery): readonly ReportRow[] {
    this.checkVersion();
    const base = `${query.report.path}|${query.startDay}|${query.endDay}|${query.groupsKey}`;
    const sortedKey = `sorted|${base}|${query.sort.key}|${query.sort.value}`;
    const sorted = this.cache.get(sortedKey);
    if (sorted) return sorted;

    const builtKey = `built|${base}`;
    let built = this.cache.get(builtKey);
    if (!built) {
      let entries: readonly VisitEntry[] = this.dataset.entriesBetween(query.startDay, query.endDay);
      if (query.groups.length > 0) entries = entries.filter((e) => matchesGroups(query.groups, e.facts));
      built = buildRows(query.report, entries, (id) => this.dataset.getVisitor(id));
      this.cache.set(builtKey, built);
    }
    const result = sortRows(query.report, built, query.sort);
    this.cache.set(sortedKey, result);
    return result;
  }

  /** The requested page of the query's result. */
  page(query: ReportQuery): ReportRow[] {
    return paginate(this.rows(query), query.page, query.limit);
  }

  /** The requested page as a JSON array text. */
  pageJson(query: ReportQuery): string {
    this.checkVersion();
    const key = `${query.report.path}|${query.startDay}|${query.endDay}|${query.groupsKey}|${query.sort.key}|${query.sort.value}|${query.page}|${query.limit}`;
    let json = this.pages.get(key);
    if (json === undefined) {
      json = `[${this.page(query).map(jsonOf).join(',')}]`;
      this.pages.set(key, json);
    }
    return json;
  }
}
