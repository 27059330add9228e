import type { App } from '@slack/bolt';
import { ACTIONS } from '../../features/reports/blocks.js';
import { FILTER_REMOVE_PATTERN } from '../../features/reports/modals.js';
import { perRequest, type SlackDeps } from './deps.js';
import { menuTarget, navigate, pageTarget } from '../../features/reports/listeners/navigate.js';
import { openDrillModal, openFilterModal, removeFilterInModal } from '../../features/reports/listeners/modals.js';
import { shareReport } from '../../features/reports/listeners/share.js';
import { visitorCardAction } from '../../features/visitor/buttons.js';
import { VISITOR_ACTIONS } from '../../features/visitor/card.js';
import { DIGEST_ACTIONS } from '../../features/digests/blocks.js';
import { digestButton } from '../../features/digests/buttons.js';
import { alertButton } from '../../features/alerts/buttons.js';
import { ALERT_ACTIONS } from '../../features/alerts/blocks.js';

export function register(app: App, deps: SlackDeps): void {
  app.action(ACTIONS.prev, perRequest(deps, (d) => navigate(d, pageTarget)));
  app.action(ACTIONS.next, perRequest(deps, (d) => navigate(d, pageTarget)));
  app.action(ACTIONS.range, perRequest(deps, (d) => navigate(d, menuTarget)));
  app.action(ACTIONS.sort, perRequest(deps, (d) => navigate(d, menuTarget)));
  app.action(ACTIONS.share, perRequest(deps, shareReport));
  app.action(ACTIONS.filter, perRequest(deps, openFilterModal));
  app.action(ACTIONS.drill, perRequest(deps, openDrillModal));
  app.action(FILTER_REMOVE_PATTERN, perRequest(deps, removeFilterInModal));
  app.action(ACTIONS.inspect, perRequest(deps, (d) => visitorCardAction(d, 'open')));
  app.action(VISITOR_ACTIONS.more, perRequest(deps, (d) => visitorCardAction(d, 'page')));
  app.action(VISITOR_ACTIONS.share, perRequest(deps, (d) => visitorCardAction(d, 'share')));
  for (const verb of ['preview', 'pause', 'resume', 'edit', 'remove'] as const) app.action(DIGEST_ACTIONS[verb], perRequest(deps, (d) => digestButton(d, verb)));
  for (const verb of ['ack', 'mute24h', 'mute7d', 'unmute', 'details'] as const) app.action(ALERT_ACTIONS[verb], perRequest(deps, (d) => alertButton(d, verb)));
}
