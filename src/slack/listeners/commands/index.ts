import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { trafficCommand } from './traffic.js';
import { visitorCommand } from './visitor.js';

export function register(app: App, deps: SlackDeps): void {
  app.command('/traffic', trafficCommand(deps));
  app.command('/visitor', visitorCommand(deps));
}
