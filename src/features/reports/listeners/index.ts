import type { Routes } from '../../../platform/slack/routes.js';
import type { VisitorCards } from '../../visitor/index.js';
import { ACTIONS } from '../blocks.js';
import { DRILL_MODAL, FILTER_MODAL, FILTER_REMOVE_PATTERN } from '../modals.js';
import type { ReportService } from '../service.js';
import { inspect, navigate, share } from './actions.js';
import { openModal, removeFilter, submitModal } from './modals.js';

/** Every button, menu and modal of a report answer. (The /traffic command itself is the dispatcher's.) */
export function registerReports(app: Routes, reports: ReportService, cards: VisitorCards): void {
  for (const id of [ACTIONS.prev, ACTIONS.next, ACTIONS.range, ACTIONS.sort]) app.action(id, navigate(reports));
  app.action(ACTIONS.share, share(reports));
  app.action(ACTIONS.inspect, inspect(reports, cards));
  app.action(ACTIONS.filter, openModal(reports, 'filter'));
  app.action(ACTIONS.drill, openModal(reports, 'drill'));
  app.action(FILTER_REMOVE_PATTERN, removeFilter(reports));
  app.view(FILTER_MODAL, submitModal(reports, 'filter'));
  app.view(DRILL_MODAL, submitModal(reports, 'drill'));
}
