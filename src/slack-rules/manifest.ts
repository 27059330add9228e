/**
 * Slack's app manifest, version 2, as far as Lookout uses it: every key it may hold and each
 * value's bounds, from Slack's published schema (slackapi/manifest-schema,
 * schemas/manifest.schema.2.0.0.json; objects there take no keys they do not name). Sections
 * Lookout does not use (functions, workflows, datastores…) are refused here, so a manifest
 * that grows one is checked again against the schema first.
 */
import { z } from 'zod';

export const MANIFEST_SCHEMA_SOURCE =
  'https://github.com/slackapi/manifest-schema/blob/main/schemas/manifest.schema.2.0.0.json';

const url = z
  .string()
  .regex(/^https?:\/\//)
  .max(3500);
const events = z
  .array(z.string().max(50))
  .max(100)
  .refine((list) => new Set(list).size === list.length, 'events must be unique');
const scopes = z.array(z.string().max(50)).max(255);

/** Where the manifest's MCP servers are stated (the schema), and where `mcp:connect` is (Slack's sample: the schema does not constrain scope names). */
export const MCP_SOURCES = {
  mcpServers: {
    url: 'https://github.com/slackapi/manifest-schema/blob/c50cfa8508ff1017344550a5e5fb29a1416e5b98/schemas/manifest.schema.2.0.0.json#L1293',
    note: "app-manifests.v1.mcp_servers: top-level, at most 20, each a url (https, 500 characters), an auth_type, optional headers and auth_provider_key, nothing else (added in manifest-schema PR #71, 2026-06-18). Slack's page on Slackbot's MCP client says nothing more of it.",
  },
  mcpConnect: {
    url: 'https://github.com/slack-samples/bolt-js-examples/blob/421ff7d38e880cb0fee6bcc97324c5ca972c8e1e/ai/slackbot-mcp-client/slack-identity/manifest.json',
    note: "Slack's sample asks for the bot scope mcp:connect beside mcp_servers; the schema does not name scopes, and the stored copy of Slack's page ends before its 'Adding the MCP server' section.",
  },
} as const;

const mcpServer = z.strictObject({
  url: z
    .string()
    .regex(/^https:\/\//)
    .max(500),
  headers: z.record(z.string().min(1), z.string()).optional(),
  auth_provider_key: z.string().max(255).optional(),
  auth_type: z.enum(['dynamic_client_registration', 'no_auth', 'manual_auth', 'slack_identity_auth']),
});

export const Manifest = z.strictObject({
  $schema: z.string().optional(),
  _metadata: z.strictObject({
    schema_version: z.int().optional(),
    min_version: z.int().optional(),
    major_version: z.literal(2),
    minor_version: z.int().optional(),
  }),
  display_information: z.strictObject({
    name: z.string().min(1).max(35),
    description: z.string().min(1).max(140).optional(),
    background_color: z
      .string()
      .regex(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/)
      .optional(),
    long_description: z.string().min(175).max(4000).optional(),
  }),
  features: z
    .strictObject({
      app_home: z
        .strictObject({
          home_tab_enabled: z.boolean().optional(),
          messages_tab_enabled: z.boolean().optional(),
          messages_tab_read_only_enabled: z.boolean().optional(),
        })
        .optional(),
      bot_user: z
        .strictObject({ display_name: z.string().min(1).max(80), always_online: z.boolean().optional() })
        .optional(),
      slash_commands: z
        .array(
          z.strictObject({
            command: z.string().regex(/^\//).min(2).max(32),
            url: z
              .string()
              .regex(/^https?:\/\//)
              .max(3000)
              .optional(),
            description: z.string().min(1).max(2000),
            usage_hint: z.string().min(1).max(1000).optional(),
            should_escape: z.boolean().optional(),
          }),
        )
        .min(1)
        .max(50)
        .optional(),
    })
    .optional(),
  /** The MCP servers Slackbot may call for the app (MCP_SOURCES.mcpServers). */
  mcp_servers: z
    .record(z.string(), mcpServer)
    .refine((servers) => Object.keys(servers).length <= 20, 'at most 20 MCP servers')
    .optional(),
  oauth_config: z
    .strictObject({
      redirect_urls: z.array(z.string().max(2500)).max(1000).optional(),
      scopes: z
        .strictObject({
          user: scopes.optional(),
          bot: scopes.optional(),
          user_optional: scopes.optional(),
          bot_optional: scopes.optional(),
        })
        .optional(),
      token_management_enabled: z.boolean().optional(),
      pkce_enabled: z.boolean().optional(),
    })
    .optional(),
  settings: z
    .strictObject({
      event_subscriptions: z
        .strictObject({ request_url: url.optional(), user_events: events.optional(), bot_events: events.optional() })
        .optional(),
      interactivity: z
        .strictObject({
          is_enabled: z.boolean(),
          request_url: url.optional(),
          message_menu_options_url: url.optional(),
        })
        .optional(),
      org_deploy_enabled: z.boolean().optional(),
      socket_mode_enabled: z.boolean().optional(),
      token_rotation_enabled: z.boolean().optional(),
    })
    .optional(),
});

export type Manifest = z.infer<typeof Manifest>;

/** The scopes a manifest asks for that no method needs, and why each is asked for. */
export const SCOPES_WITHOUT_A_METHOD: Record<string, string> = {
  commands: 'slash commands (features.slash_commands)',
  'chat:write.public': 'digests, watch alerts and threat alerts post in public channels Lookout was not invited to',
  'mcp:connect': 'Slackbot calls the MCP server the manifest declares (mcp_servers)',
};

/** Events and the scopes their delivery needs (app_home_opened needs none). */
export const EVENT_SCOPES: Record<string, readonly string[]> = {
  app_home_opened: [],
  // "This Events API-only event is sent via subscription whenever a Slack app is completely uninstalled"; no scope
  // is listed (https://api.slack.com/events/app_uninstalled). tokens_revoked likewise lists none
  // (https://docs.slack.dev/reference/events/tokens_revoked).
  app_uninstalled: [],
  tokens_revoked: [],
};
