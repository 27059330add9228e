import type { Weekday } from '../kernel/dates.js';
import type { ApiDays } from '../kernel/trend.js';
import type { Logger } from './log.js';
import type { Quota } from './quota.js';

/** What every service that answers from the analytics API needs (the workspace's API itself comes with each request). */
export interface Answering {
  /** The zone date ranges are resolved in for a channel. */
  timeZoneFor: (channelId: string | undefined) => Promise<string>;
  now: () => Date;
  /** The zone the API counts its dates in (a day's figures are its days), and when a period is final there. */
  apiDays: ApiDays;
  /** The first day of a week (LOCALE; Monday when absent): `wtd`, `lastweek` and a trend's weeks. */
  weekStart?: Weekday;
  /** Answers say "demo data" when the demo API is behind them. */
  demo: boolean;
  /** Each person's share of the analytics API; scheduled work is not counted. */
  quota: Quota;
  log: Logger;
}

/** Where and for whom an answer is asked, and how it goes out. */
export interface Where {
  channelId?: string;
  /** An ephemeral answer gets "Post to channel". */
  ephemeral: boolean;
  /** Who asked: counted against their quota (absent: Lookout's own work). */
  user?: string;
  /** Posted for everyone by this person ("Post to channel"): the answer says so. */
  sharedBy?: string;
  /** The request's logger. */
  log?: Logger;
  /** The ref of the message it was opened from: the answer offers the way back. */
  back?: string;
  /** Told, in words, how an answer that takes long is going. */
  progress?: (text: string) => Promise<void>;
}
