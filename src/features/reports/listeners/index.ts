import type { Routes } from '../../../platform/slack/routes.js';
import type { VisitorCards } from '../../visitor/index.js';
import { ACTIONS } from '../blocks.js';
import { DRILL_MODAL, FILTER_MODAL, FILTER_REMOVE_PATTERN } from '../modals.js';
import type { ReportService } from '../service.js';
import { inspect, navigate, share } from './actions.js';
import { openModal, removeFilter, submitModal } from './modals.js';

/** Every button, menu and modal of a report answer (/traffic itself: traffic.ts). */
export function registerReports(app: Routes, reports: ReportService, cards: VisitorCards): void {
  // Answers go in place of an ephemeral message; under a shared one, to the clicker alone.
  for (const id of [ACTIONS.prev, ACTIONS.next, ACTIONS.range, ACTIONS.sort])
    app.handle(id, navigate(reports), 'in place if ephemeral');
  app.handle(ACTIONS.share, share(reports), 'replace');
  app.handle(ACTIONS.inspect, inspect(reports, cards));
  app.handle(ACTIONS.filter, openModal(reports, 'filter'), 'replace');
  app.handle(ACTIONS.drill, openModal(reports, 'drill'), 'replace');
  app.handle(FILTER_REMOVE_PATTERN, removeFilter(reports), 'none');
  app.view(FILTER_MODAL, submitModal(reports, 'filter', app.tenantOf));
  app.view(DRILL_MODAL, submitModal(reports, 'drill', app.tenantOf));
}
