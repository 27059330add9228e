/** The offline Slack: a loopback Slack for the sandbox and the tests. */
export { startOfflineSlack, OfflineSlack, type OfflineSlackOptions, type DemoAccountNote } from './server.js';
export type { ExtraWorkspace } from './seeds.js';
export { Router, type RouteHandler, type RouteContext, type ExtraRoutes } from './router.js';
export { SlackDriver, type ClickOptions, type MessageRef, type SubmitValues, type DeliveryOptions } from './driver.js';
export { stateValue, findElement } from './elements.js';
export {
  Workspace,
  compareTs,
  type Channel,
  type Message,
  type SlackUser,
  type Team,
  type View,
  type WorkspaceChange,
} from './workspace.js';
export { BOT, TEAM, OTHER_TEAM, OTHER_BOT, SLACKBOT, type BotIdentity } from './seeds.js';
export {
  validateBlocks,
  validateMessage,
  validateView,
  validateMessageText,
  toJsonPointerMessage,
  LIMITS,
  type Surface,
  type BlocksValidation,
  type ViewValidation,
} from '@lookout/slack-rules/validate';
export { signRequest, computeSignature, verifySignature, type SignatureHeaders } from './signing.js';
export { mcpUrlOf, slackSignedFetch, type SlackbotAnswer, type SlackbotTool } from './slackbot.js';
export { apiMessage, apiView } from './api-objects.js';
export type { InjectedFailure, ApiCall } from './web-api.js';
export { OAuthServer, CODE_TTL_MS, ACCESS_TOKEN_TTL_S, type OAuthApp } from './oauth.js';
export type { ResponseUrl, ResponseLogEntry } from './response-url.js';
export type { RateLimitOptions } from './rate-limit.js';
export type { Delivery } from './types.js';
export type { Suggestions, SuggestedCommand, SuggestedWord } from './suggestions.js';
