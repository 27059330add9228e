/**
 * Slack's rules for what an app may send, one row a rule, each with where Slack states it.
 * The offline Slack refuses what breaks them, and Lookout checks every payload against
 * them before it leaves (platform/slack/preflight-gate.ts). Pure data; no imports.
 *
 * A `source` is Slack's reference page where it states the rule; where the page is silent,
 * the SDK change or issue that does, and a `note` saying so. Where nothing states a rule,
 * the note says which reading was chosen: always the stricter one.
 */

export type Surface = 'message' | 'modal' | 'home';

export interface Source {
  url: string;
  /** What the source says, or why this reading was chosen where Slack is silent. */
  note?: string;
}

const REF = 'https://docs.slack.dev/reference/block-kit';
const block = (name: string): string => `${REF}/blocks/${name}`;
const element = (name: string): string => `${REF}/block-elements/${name}`;
const composition = (name: string): string => `${REF}/composition-objects/${name}`;
const method = (name: string): string => `https://docs.slack.dev/reference/methods/${name}`;
const RATE_LIMITS = 'https://docs.slack.dev/apis/web-api/rate-limits';
const VIEWS = 'https://docs.slack.dev/reference/views/modal-views';
const ATTACHMENTS = 'https://api.slack.com/reference/messaging/attachments';

export interface BlockRule {
  /** The surfaces Slack accepts the block on. */
  surfaces: readonly Surface[];
  /** Whether a secondary attachment's `blocks` may hold it (messages only). */
  inAttachments: boolean;
  source: Source;
}

const ALL: readonly Surface[] = ['message', 'modal', 'home'];
const MESSAGES: readonly Surface[] = ['message'];
/** The file behind every block reference page's "Surfaces" line. */
const BLOCKS_JSON = 'https://docs.slack.dev/blocks.json';
const NOT_IN_ATTACHMENTS = 'Attachments: not stated for this block; refused there (the stricter reading).';

/** Every block type the offline Slack knows, and where each may go. */
export const BLOCK_RULES = {
  section: { surfaces: ALL, inAttachments: true, source: { url: BLOCKS_JSON, note: 'Modals, Messages, Home tabs' } },
  header: {
    surfaces: ALL,
    inAttachments: false,
    source: { url: BLOCKS_JSON, note: `Modals, Messages, Home tabs. ${NOT_IN_ATTACHMENTS}` },
  },
  divider: { surfaces: ALL, inAttachments: true, source: { url: BLOCKS_JSON, note: 'Modals, Messages, Home tabs' } },
  context: { surfaces: ALL, inAttachments: true, source: { url: BLOCKS_JSON, note: 'Modals, Messages, Home tabs' } },
  actions: { surfaces: ALL, inAttachments: true, source: { url: BLOCKS_JSON, note: 'Modals, Messages, Home tabs' } },
  image: { surfaces: ALL, inAttachments: true, source: { url: BLOCKS_JSON, note: 'Modals, Messages, Home tabs' } },
  input: {
    surfaces: ['modal', 'home'],
    inAttachments: false,
    source: {
      url: 'https://github.com/slackapi/python-slack-sdk/issues/1257',
      note: `blocks.json lists Messages too, but an input block posted in a message was refused with invalid_blocks: refused in messages (the stricter reading). ${NOT_IN_ATTACHMENTS}`,
    },
  },
  rich_text: {
    surfaces: ALL,
    inAttachments: false,
    source: { url: BLOCKS_JSON, note: `Modals, Messages, Home tabs. ${NOT_IN_ATTACHMENTS}` },
  },
  video: {
    surfaces: ALL,
    inAttachments: false,
    source: { url: BLOCKS_JSON, note: `Modals, Messages, Home tabs. ${NOT_IN_ATTACHMENTS}` },
  },
  table: {
    surfaces: MESSAGES,
    inAttachments: false,
    source: {
      url: BLOCKS_JSON,
      note: `Messages, Home tabs; a validator built on the same file found it does not render on a Home tab: messages only (the stricter reading). ${NOT_IN_ATTACHMENTS}`,
    },
  },
  markdown: {
    surfaces: MESSAGES,
    inAttachments: false,
    source: { url: BLOCKS_JSON, note: `Messages only. ${NOT_IN_ATTACHMENTS}` },
  },
  context_actions: {
    surfaces: MESSAGES,
    inAttachments: false,
    source: { url: BLOCKS_JSON, note: `Messages only. ${NOT_IN_ATTACHMENTS}` },
  },
  data_table: {
    surfaces: MESSAGES,
    inAttachments: false,
    source: {
      url: BLOCKS_JSON,
      note: `Messages, Home tabs; as for table, messages only (the stricter reading). ${NOT_IN_ATTACHMENTS}`,
    },
  },
  data_visualization: {
    surfaces: MESSAGES,
    inAttachments: false,
    source: {
      url: `${REF}/blocks/data-visualization-block`,
      note: `"Available in Surfaces: Messages" (blocks.json agrees). ${NOT_IN_ATTACHMENTS}`,
    },
  },
  alert: {
    surfaces: ['modal'],
    inAttachments: false,
    source: {
      url: 'https://github.com/slackapi/node-slack-sdk/pull/2567',
      note: 'blocks.json: Modals. The SDK: "only supported in modal views (views.open / views.update). It is not supported in chat.postMessage or other message surfaces"; python-slack-sdk#1865 and java-slack-sdk#1624 agree.',
    },
  },
} as const satisfies Record<string, BlockRule>;

export type BlockType = keyof typeof BLOCK_RULES;

export interface LimitRule {
  max: number;
  source: Source;
}

/** Slack's limits: counts of items, and lengths in characters (Unicode code points). */
export const LIMIT_RULES = {
  messageBlocks: {
    max: 50,
    source: { url: `${REF}/blocks`, note: '"up to 50 blocks in each message, and 100 blocks in modals or Home tabs"' },
  },
  viewBlocks: {
    max: 100,
    source: { url: `${REF}/blocks`, note: '"up to 50 blocks in each message, and 100 blocks in modals or Home tabs"' },
  },
  messageText: {
    max: 40_000,
    source: {
      url: 'https://api.slack.com/changelog/2018-04-truncating-really-long-messages',
      note: 'longer text is truncated and posted, not refused',
    },
  },
  messageAttachments: {
    max: 100,
    source: {
      url: ATTACHMENTS,
      note: "not stated on the page found; 100 as Slack's legacy attachment guide had it. Lookout sends at most two.",
    },
  },
  sectionText: { max: 3000, source: { url: block('section-block') } },
  sectionFields: { max: 10, source: { url: block('section-block') } },
  sectionFieldText: { max: 2000, source: { url: block('section-block') } },
  headerText: { max: 150, source: { url: block('header-block') } },
  contextElements: { max: 10, source: { url: block('context-block') } },
  contextText: {
    max: 3000,
    source: { url: composition('text-object'), note: "a text object in a context block: the text object's limit" },
  },
  blockId: { max: 255, source: { url: block('section-block'), note: "block_id, on every block's page" } },
  actionId: { max: 255, source: { url: element('button-element'), note: "action_id, on every element's page" } },
  actionsElements: { max: 25, source: { url: block('actions-block') } },
  buttonText: { max: 75, source: { url: element('button-element') } },
  buttonValue: { max: 2000, source: { url: element('button-element') } },
  url: { max: 3000, source: { url: element('button-element') } },
  accessibilityLabel: { max: 75, source: { url: element('button-element') } },
  selectOptions: { max: 100, source: { url: element('select-menu-element') } },
  optionGroups: { max: 100, source: { url: element('select-menu-element') } },
  overflowOptions: { max: 5, source: { url: element('overflow-menu-element'), note: 'at most 5 options' } },
  checkboxOptions: { max: 10, source: { url: element('checkboxes-element') } },
  optionText: { max: 75, source: { url: composition('option-object') } },
  optionValue: {
    max: 150,
    source: { url: composition('option-object'), note: '"Maximum length for this field is 150 characters."' },
  },
  optionDescription: { max: 75, source: { url: composition('option-object') } },
  optionGroupLabel: { max: 75, source: { url: composition('option-group-object') } },
  confirmTitle: { max: 100, source: { url: composition('confirmation-dialog-object') } },
  confirmText: { max: 300, source: { url: composition('confirmation-dialog-object') } },
  confirmButton: { max: 30, source: { url: composition('confirmation-dialog-object') } },
  placeholder: { max: 150, source: { url: element('select-menu-element') } },
  imageAltText: { max: 2000, source: { url: block('image-block') } },
  imageTitle: { max: 2000, source: { url: block('image-block') } },
  inputLabel: { max: 2000, source: { url: block('input-block') } },
  inputHint: { max: 2000, source: { url: block('input-block') } },
  plainTextInputLength: { max: 3000, source: { url: element('plain-text-input-element') } },
  tableRows: { max: 100, source: { url: block('table-block') } },
  tableCells: { max: 20, source: { url: block('table-block') } },
  tableColumnSettings: { max: 20, source: { url: block('table-block') } },
  tablesPerMessage: {
    max: 1,
    source: {
      url: 'https://github.com/slackapi/slack-skills-plugin',
      note: 'Slack\'s own skills plugin (skills/block-kit/SKILL.md): "only one table block per message"; Slack answers only_one_table_allowed',
    },
  },
  tableChars: {
    max: 10_000,
    source: {
      url: block('table-block'),
      note: '"A single table\'s character count across all cells cannot exceed 10,000 characters" (newer text of the page)',
    },
  },
  markdownText: {
    max: 12_000,
    source: {
      url: block('markdown-block'),
      note: '"Limit 12,000 characters max"; cumulative across a message\'s markdown blocks (slack-skills-plugin)',
    },
  },
  contextActionsElements: { max: 5, source: { url: block('context-actions-block') } },
  dataTableRows: {
    max: 100,
    source: {
      url: block('data-table-block'),
      note: 'a header and 1–100 rows; a later copy of the page is reported to say 200: the stricter 100',
    },
  },
  dataTablePageSize: { max: 100, source: { url: block('data-table-block') } },
  dataTableChars: {
    max: 10_000,
    source: {
      url: block('data-table-block'),
      note: '"the character count across all cells cannot exceed 10,000"; later reported as 20,000: the stricter 10,000. The error\'s name is not stated.',
    },
  },
  chartTitle: { max: 50, source: { url: block('data-visualization-block'), note: '"Maximum 50 characters."' } },
  chartSeries: {
    max: 6,
    source: { url: block('data-visualization-block'), note: 'series, or pie segments: "Min 1, max 6."' },
  },
  chartLabel: {
    max: 20,
    source: {
      url: block('data-visualization-block'),
      note: 'segment labels: "Maximum of 20 characters"; categories and series names the same (node-slack-sdk#2637)',
    },
  },
  chartsPerMessage: {
    max: 2,
    source: {
      url: 'https://github.com/vercel/chat/pull/696',
      note: 'Slack\'s page is silent; "the undocumented max 2 charts per message", found from Slack\'s invalid_blocks answer',
    },
  },
  alertText: {
    max: 200,
    source: {
      url: `${REF}/blocks/alert`,
      note: 'Slack and its SDKs are silent; a third-party crate (slackblocks 2.7) says 200: the stricter reading',
    },
  },
  videoTitle: { max: 200, source: { url: block('video-block') } },
  viewTitle: { max: 24, source: { url: VIEWS, note: '"max length of 24 characters"' } },
  viewButton: { max: 24, source: { url: VIEWS, note: 'submit and close' } },
  privateMetadata: { max: 3000, source: { url: VIEWS } },
  callbackId: {
    max: 255,
    source: {
      url: VIEWS,
      note: 'the page is cut where it says; @slack/types\' BaseView.callback_id: "Maximum length of 255 characters."',
    },
  },
  externalId: { max: 255, source: { url: VIEWS, note: 'not stated; the same as callback_id, the stricter reading' } },
} as const satisfies Record<string, LimitRule>;

export type LimitName = keyof typeof LIMIT_RULES;

/** The numbers alone, for code that checks or trims against them. */
export const LIMITS = Object.fromEntries(Object.entries(LIMIT_RULES).map(([k, r]) => [k, r.max])) as {
  readonly [K in LimitName]: number;
};

/** Colours a secondary attachment's bar may take: a hex code or one of Slack's three names. */
export const ATTACHMENT_COLOR: { pattern: RegExp; source: Source } = {
  pattern: /^(#[0-9a-fA-F]{6}|good|warning|danger)$/,
  source: {
    url: ATTACHMENTS,
    note: '"a legacy part of messaging functionality", still accepted; @slack/types MessageAttachment: color is good, warning, danger or a hex code',
  },
};

export type Tier = 1 | 2 | 3 | 4 | 'special';

export interface MethodRule {
  tier: Tier;
  /** Calls a minute per app per workspace, the tier's floor ("+": Slack allows some more). */
  perMinute: number;
  /** Calls allowed at once (default: a minute's worth). */
  burst?: number;
  /** The bot scopes the method needs, as its reference page lists them. */
  scopes: readonly string[];
  source: Source;
}

/** Tiers' floors: "Tier 1 1+ per minute … Tier 2 20+ … Tier 3 50+ … Tier 4 100+", per method per workspace per app (RATE_LIMITS). */
const TIER_PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;
const JAVA_SDK_TIERS =
  'https://github.com/slackapi/java-slack-sdk/blob/main/slack-api-client/src/main/java/com/slack/api/methods/MethodsRateLimits.java';
const tier = (t: 1 | 2 | 3 | 4, scopes: readonly string[], url: string, note?: string): MethodRule => ({
  tier: t,
  perMinute: TIER_PER_MINUTE[t],
  scopes,
  source: { url, ...(note ? { note } : {}) },
});
const SDK_ONLY = "Slack's page, as found, does not show the tier; Slack's Java SDK sets it";

/**
 * The Web API methods Lookout calls, with their rate tier, "per API method per workspace/team
 * per app". chat.postMessage is special: one message a second per channel with short bursts,
 * plus a workspace-wide limit.
 */
export const METHOD_RULES = {
  'chat.postMessage': {
    tier: 'special',
    perMinute: 60,
    scopes: ['chat:write'],
    source: {
      url: RATE_LIMITS,
      note: '"generally allows posting one message per second per channel, while also maintaining a workspace-wide limit"',
    },
  },
  'chat.update': tier(3, ['chat:write'], 'https://api.slack.com/methods/chat.update'),
  'chat.postEphemeral': tier(4, ['chat:write'], 'https://api.slack.com/methods/chat.postEphemeral'),
  'views.open': tier(4, [], 'https://api.slack.com/methods/views.open'),
  'views.update': tier(4, [], JAVA_SDK_TIERS, SDK_ONLY),
  'views.push': tier(4, [], JAVA_SDK_TIERS, SDK_ONLY),
  'views.publish': tier(4, [], 'https://api.slack.com/methods/views.publish'),
  'conversations.list': tier(
    2,
    ['channels:read', 'groups:read'],
    method('conversations.list'),
    'public channels need channels:read, private ones groups:read',
  ),
  'conversations.info': tier(3, ['channels:read'], JAVA_SDK_TIERS, SDK_ONLY),
  'conversations.members': tier(
    4,
    ['channels:read', 'groups:read'],
    'https://api.slack-gov.com/methods/conversations.members',
  ),
  'users.info': tier(
    3,
    ['users:read'],
    JAVA_SDK_TIERS,
    "The Java SDK says Tier 4, a mirror of Slack's older API specs Tier 3: Tier 3, the stricter reading",
  ),
  'oauth.v2.access': tier(4, [], JAVA_SDK_TIERS, SDK_ONLY),
  'auth.test': {
    tier: 'special',
    perMinute: 600,
    scopes: [],
    source: {
      url: method('auth.test'),
      note: '"hundreds of requests per minute"; 600 a minute as the Java SDK models it',
    },
  },
  'apps.connections.open': {
    ...tier(
      1,
      [],
      'https://api.slack.com/methods/apps.connections.open',
      "called with the app-level token (connections:write), not the bot's",
    ),
    // An app may hold up to 10 Socket Mode connections, each opened by a call: a burst of 10, then the tier's pace.
    burst: 10,
  },
} as const satisfies Record<string, MethodRule>;

export type MethodName = keyof typeof METHOD_RULES;

/** response_url: up to 5 answers within 30 minutes of the interaction. */
export const RESPONSE_URL: { uses: number; withinMs: number; source: Source } = {
  uses: 5,
  withinMs: 30 * 60_000,
  source: {
    url: 'https://github.com/slackapi/java-slack-sdk/blob/main/docs/english/guides/interactive-components.md',
    note: '"usable up to 5 times within 30 minutes of the action invocation"; Slack\'s own page was not found',
  },
};
