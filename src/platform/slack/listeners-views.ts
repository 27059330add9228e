import type { App } from '@slack/bolt';
import { DRILL_MODAL, FILTER_MODAL } from '../../features/reports/modals.js';
import { perRequest, type SlackDeps } from './deps.js';
import { submitDrill } from '../../features/reports/listeners/drill-submit.js';
import { submitFilter } from '../../features/reports/listeners/filter-submit.js';
import { submitDigest } from '../../features/digests/submit.js';
import { DIGEST_MODAL } from '../../features/digests/modal.js';

export function register(app: App, deps: SlackDeps): void {
  app.view(FILTER_MODAL, perRequest(deps, submitFilter));
  app.view(DRILL_MODAL, perRequest(deps, submitDrill));
  app.view(DIGEST_MODAL, perRequest(deps, submitDigest));
}
