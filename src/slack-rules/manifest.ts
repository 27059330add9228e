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
