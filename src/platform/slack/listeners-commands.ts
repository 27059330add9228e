import type { App } from '@slack/bolt';
import { perRequest, type SlackDeps } from './deps.js';
import { trafficCommand } from '../../traffic.js';
import { visitorCommand } from '../../features/visitor/listeners.js';

export function register(app: App, deps: SlackDeps): void {
  app.command('/traffic', perRequest(deps, trafficCommand));
  app.command('/visitor', perRequest(deps, visitorCommand));
}
