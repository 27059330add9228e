/**
 * What the page's composer suggests: the app's slash commands with their usage lines, the
 * words each takes first and what may follow a word, and the examples offered as chips. The
 * app hands them to the sandbox (`SandboxApp.suggestions`, or `OfflineSlackOptions.suggestions`);
 * the page reads them at GET /ui/suggestions.json.
 */
export interface Suggestions {
  commands: SuggestedCommand[];
  /** Whole commands the page offers under the composer ("Try …"). */
  examples: string[];
}

export interface SuggestedCommand {
  /** The slash command, e.g. `/traffic`. */
  command: string;
  /** Its usage after the command's name, e.g. `<report> [range] …`. */
  hint: string;
  description: string;
  /** The words that may come first after the command. */
  words?: SuggestedWord[];
}

export interface SuggestedWord {
  word: string;
  /** What the word is, shown beside it (e.g. `report`, `scheduled digests`). */
  detail: string;
  /** The words that may come second after this one, and what they are (e.g. `range`). */
  next?: { detail: string; words: string[] };
}

export const NO_SUGGESTIONS: Suggestions = { commands: [], examples: [] };
