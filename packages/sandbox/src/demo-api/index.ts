/** The demo API: a real HTTP server with deterministic demo data, for tests, benchmarks and `npm start`. */

export {
  startDemoApi,
  type DemoAccount,
  type DemoAccountOptions,
  type DemoApi,
  type DemoApiOptions,
  type RecordedRequest,
} from './server.js';
export { SHOP_SITE, SOFTWARE_SITE, demoVisitorsOf, siteId, type DemoSite } from './site.js';
export { Dataset, DEMO_VISITORS, type AddVisitInput, type AddVisitorInput } from './dataset.js';
export { generateDataset, type GenerateOptions } from './generate-dataset.js';
export type { HourSpan, PastEvents, PastSpike } from './past-events.js';
export type { Faults } from './faults.js';
export { LiveTraffic, type LiveOptions } from './live.js';
export {
  FLAGGED_SCORE,
  isFlagged,
  NEW_SOURCES,
  SCRAPED_PAGE,
  SCRAPER_SOURCE,
  type NewSource,
  type PeriodCounts,
  type ProducedSpike,
  type SpikeRequest,
} from './spikes.js';
export type { Company, SecurityProfile, Visit, Visitor } from './model.js';
export { REPORTS } from './aggregate.js';
export { FILTER_OBJECTS, OPERATORS } from './filters.js';
export { DEFAULT_END_DATE, DEFAULT_START_DATE, MAX_LIMIT } from './request.js';
export { EMOJI_CAMPAIGN, HOSTILE_CAMPAIGN, HOSTILE_PAGE_PATH } from './catalog.js';
