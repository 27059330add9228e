import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/report.js';
import { FILTER_REMOVE_PATTERN } from '../../blocks/modals.js';
import type { SlackDeps } from '../../deps.js';
import { menuTarget, navigate, pageTarget } from './report-navigate.js';
import { openDrillModal, openFilterModal, removeFilterInModal } from './report-modals.js';
import { shareReport } from './report-share.js';
import { visitorCardAction } from './visitor-card.js';
import { VISITOR_ACTIONS } from '../../blocks/visitor-card.js';
import { DIGEST_ACTIONS } from '../../blocks/digest.js';
import { digestButton } from './digest-buttons.js';
import { alertButton } from './alert-buttons.js';
import { ALERT_ACTIONS } from '../../blocks/alert.js';

export function register(app: App, deps: SlackDeps): void {
  app.action(ACTIONS.prev, navigate(deps, pageTarget));
  app.action(ACTIONS.next, navigate(deps, pageTarget));
  app.action(ACTIONS.range, navigate(deps, menuTarget));
  app.action(ACTIONS.sort, navigate(deps, menuTarget));
  app.action(ACTIONS.share, shareReport(deps));
  app.action(ACTIONS.filter, openFilterModal(deps));
  app.action(ACTIONS.drill, openDrillModal(deps));
  app.action(FILTER_REMOVE_PATTERN, removeFilterInModal(deps));
  app.action(ACTIONS.inspect, visitorCardAction(deps, 'open'));
  app.action(VISITOR_ACTIONS.more, visitorCardAction(deps, 'page'));
  app.action(VISITOR_ACTIONS.share, visitorCardAction(deps, 'share'));
  for (const verb of ['preview', 'pause', 'resume', 'edit', 'remove'] as const) app.action(DIGEST_ACTIONS[verb], digestButton(deps, verb));
  for (const verb of ['ack', 'mute24h', 'mute7d', 'unmute', 'details'] as const) app.action(ALERT_ACTIONS[verb], alertButton(deps, verb));
}
