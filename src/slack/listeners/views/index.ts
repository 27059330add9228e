import type { App } from '@slack/bolt';
import { DRILL_MODAL, FILTER_MODAL } from '../../blocks/modals.js';
import { perRequest, type SlackDeps } from '../../deps.js';
import { submitDrill } from './drill-submit.js';
import { submitFilter } from './filter-submit.js';
import { submitDigest } from './digest-submit.js';
import { DIGEST_MODAL } from '../../blocks/digest-modal.js';

export function register(app: App, deps: SlackDeps): void {
  app.view(FILTER_MODAL, perRequest(deps, submitFilter));
  app.view(DRILL_MODAL, perRequest(deps, submitDrill));
  app.view(DIGEST_MODAL, perRequest(deps, submitDigest));
}
