/**
 * What a report embeds: the session reduced to what the page shows, as JSON. The page renders it
 * lazily (a turn's calls when the turn is opened), so every string here is already capped.
 * Short keys are not used: the data is read by people debugging a report too.
 */

/** A text that may have been cut to the report's cap: its head and tail are kept. */
export type CappedText = {
  text: string;
  /** Characters of the original (when it was cut, `text` is shorter). */
  chars: number;
  cut: boolean;
  /** The cap it was cut to (when cut). */
  cap?: number;
  /** Left out by --redact: `text` is empty and `chars` says how much there was. */
  redacted?: boolean;
};

export type TokenCounts = { input: number; output: number; cacheRead: number; cacheCreation: number };

export type ModelTotal = TokenCounts & {
  model: string;
  calls: number;
  /** USD; null when any call's price is unknown. */
  costUsd: number | null;
};

/** One row of a diff: context, removed or added line. */
export type DiffLine = { op: " " | "-" | "+"; text: string };

export type FileDiff = {
  file: string;
  /** "edit": old_string → new_string; "write": the whole new content (the old one is not recorded). */
  kind: "edit" | "write";
  added: number;
  removed: number;
  /** Hunks of rows; empty when redacted or too large (see `note`). */
  hunks: DiffLine[][];
  note?: string;
};

export type HookRun = {
  event: string;
  hook: string;
  outcome: string;
  decision?: string;
  reason?: string;
  error?: string;
};

export type ToolCall = {
  id: string;
  name: string;
  /** The call's input as JSON text (capped; file contents left out under --redact). */
  input: CappedText;
  /** One line for the call's header (the command, the file, the pattern). */
  summary: string;
  result?: CappedText;
  isError: boolean;
  errorKind?: string;
  durationMs?: number;
  /** "allowed" (it ran), "denied" (a rule, the mode, a hook or a person said no), "not run" (invalid, aborted, no result). */
  decision: "allowed" | "denied" | "not run";
  hooks: HookRun[];
  diff?: FileDiff;
  bash?: { command: string; exitCode?: number | null };
  agent?: { type: string; description: string; session: SessionView };
};

export type Retry = { attempt: number; delayMs: number; errorStatus: number | null; error: string };

export type TurnItem = {
  kind: "turn";
  /** 1-based within its run. */
  turn: number;
  ts: string;
  model?: string;
  text: string;
  thinking?: string;
  stopReason?: string | null;
  /** Model, tool and cairn's own time in ms; null when the transcript does not say. */
  modelMs: number | null;
  toolMs: number;
  cairnMs: number | null;
  tokens?: TokenCounts;
  costUsd?: number | null;
  retries: Retry[];
  fallback?: { from: string; to: string; error: string };
  calls: ToolCall[];
};

export type CompactionItem = {
  kind: "compaction";
  ts: string;
  trigger: string;
  preTokens: number;
  postTokens: number;
  summary: CappedText;
  durationMs?: number;
};

export type NoteItem = { kind: "note"; ts: string; text: string; level: "info" | "error" };

export type RunItem = TurnItem | CompactionItem | NoteItem;

export type RunView = {
  prompt: string;
  ts: string;
  model?: string;
  permissionMode?: string;
  items: RunItem[];
  end?: {
    subtype: string;
    isError: boolean;
    aborted: boolean;
    durationMs: number;
    apiMs: number;
    toolMs: number;
    cairnMs: number;
    costUsd?: number;
    errors: string[];
    permissionDenials: number;
    retries: Retry[];
  };
};

export type SessionView = { runs: RunView[]; notes: string[] };

export type ReportData = {
  version: 1;
  session: { id: string; cwd: string; createdAt: string; forkedFrom?: string };
  generatedAt: string;
  redacted: boolean;
  /** The most characters of one text (a result, an input, a summary) embedded; longer ones are cut. */
  capChars: number;
  /**
   * The most characters of one tool result embedded: `capChars`, or less when the session's results
   * together would pass the report's budget for them (`outputBudgetChars`), so a big session's page
   * still opens fast.
   */
  resultCapChars: number;
  outputBudgetChars: number;
  prompt: string;
  answer: string;
  totals: {
    durationMs: number;
    modelMs: number;
    toolMs: number;
    cairnMs: number;
    turns: number;
    toolCalls: number;
    errors: number;
    denials: number;
    retries: number;
    compactions: number;
    subagents: number;
    costUsd: number | null;
  } & TokenCounts;
  models: ModelTotal[];
  main: SessionView;
};
