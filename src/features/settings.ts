import { agentsSettings } from './agents/settings.js';
import { alertSettings } from './alerts/settings.js';
import { digestSettings } from './digests/settings.js';
import { homeSettings } from './home/settings.js';
import { threatSettings } from './threats/settings.js';
import { trendSettings } from './trends/settings.js';
import { watchSettings } from './watches/settings.js';
import { workspaceSettings } from './workspace/settings.js';

/**
 * Each feature's settings (the function that makes its slice), by its name, readable without
 * loading the features: the configuration is read first, and `npm start` serves its page
 * before the app's code is loaded. Each feature's definition plugs the same slice
 * (test/app/settings.test.ts checks).
 */
export const FEATURE_SETTINGS = {
  threats: threatSettings,
  alerts: alertSettings,
  trends: trendSettings,
  digests: digestSettings,
  watches: watchSettings,
  workspace: workspaceSettings,
  agents: agentsSettings,
  home: homeSettings,
} as const;
