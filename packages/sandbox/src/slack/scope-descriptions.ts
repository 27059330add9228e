/**
 * What the authorise page says each scope lets the app do, in Slack's words: each scope's page
 * in Slack's reference (https://api.slack.com/scopes/<scope>, also
 * https://docs.slack.dev/reference/scopes/<scope>) opens with one line, where `@your_slack_app`
 * (docs.slack.dev: "your Slack app") stands for the app; Slack's own screen puts the app's bot
 * (`@lookout`) or its name there. Only the scopes Lookout and the tests ask for are here; for any
 * other the page shows the code alone and says the offline Slack does not know it. The lines of
 * `commands`, `users:read` and `channels:read` were not read from those pages here: they are Slack's
 * install screen as public READMEs quote it.
 */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  // https://api.slack.com/scopes/commands
  commands: 'Add shortcuts and/or slash commands that people can use',
  // https://api.slack.com/scopes/chat:write
  'chat:write': 'Send messages as {bot}',
  // https://api.slack.com/scopes/chat:write.public
  'chat:write.public': "Send messages to channels {bot} isn't a member of",
  // https://api.slack.com/scopes/users:read
  'users:read': 'View people in a workspace',
  // https://api.slack.com/scopes/channels:read
  'channels:read': 'View basic information about public channels in a workspace',
  // https://api.slack.com/scopes/groups:read
  'groups:read': 'View basic information about private channels that {app} has been added to',
};

/** The scope's line as Slack words it for this app (`bot`: its bot's handle, `app`: its name); undefined when not known here. */
export function describeScope(scope: string, names: { bot: string; app: string }): string | undefined {
  return DESCRIPTIONS[scope]?.replace('{bot}', `@${names.bot}`).replace('{app}', names.app);
}
