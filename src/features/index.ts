import type { LookoutFeature } from '../context.js';
import { agents } from './agents/index.js';
import { alerts } from './alerts/index.js';
import { digests } from './digests/index.js';
import { home } from './home/index.js';
import { reports } from './reports/index.js';
import { threats } from './threats/index.js';
import { trends } from './trends/index.js';
import { visitor } from './visitor/index.js';
import { watches } from './watches/index.js';
import { workspace } from './workspace/index.js';

/** Every feature, in the order they are plugged: each after those it needs. */
export const FEATURES = [
  visitor,
  reports,
  threats,
  alerts,
  trends,
  digests,
  watches,
  workspace,
  agents,
  home,
] as const satisfies readonly LookoutFeature[];
