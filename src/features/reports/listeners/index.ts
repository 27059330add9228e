import type { Routes } from '../../../platform/slack/routes.js';
import type { VisitorCards } from '../../visitor/index.js';
import { ACTIONS } from '../blocks.js';
import { DRILL_MODAL, FILTER_MODAL, FILTER_REMOVE_PATTERN } from '../modals.js';
import type { ReportService } from '../service.js';
import { inspect, navigate, share } from './actions.js';
import { openModal, removeFilter, submitModal } from './modals.js';

/** Every button, menu and modal of a report answer (/traffic itself: traffic.ts). */
export function registerReports(routes: Routes, reports: ReportService, cards: VisitorCards): void {
  // Answers go in place of an ephemeral message; under a shared one, to the clicker alone.
  for (const id of [ACTIONS.prev, ACTIONS.next, ACTIONS.range, ACTIONS.sort])
    routes.handle(id, navigate(reports), 'in place if ephemeral');
  routes.handle(ACTIONS.share, share(reports), 'replace');
  routes.handle(ACTIONS.inspect, inspect(reports, cards));
  routes.handle(ACTIONS.filter, openModal(reports, 'filter'), 'replace');
  routes.handle(ACTIONS.drill, openModal(reports, 'drill'), 'replace');
  routes.handle(FILTER_REMOVE_PATTERN, removeFilter(reports), 'none');
  routes.view(FILTER_MODAL, submitModal(reports, 'filter'));
  routes.view(DRILL_MODAL, submitModal(reports, 'drill'));
}
