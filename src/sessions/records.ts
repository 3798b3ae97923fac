import type {
  AssistantContentBlock,
  ConversationMessage,
  StopReason,
  ToolResultBlock,
  Usage,
  UserContentBlock,
} from "../engine/messages.js";

/**
 * The transcript format: one JSON object per line (JSONL), appended, never rewritten.
 *
 * Line 1 is the header. Every other line is one record, written with a single `write` call. The
 * `type` key always comes first, so tools (and `list`) can classify a line without parsing it.
 *
 * ```jsonl
 * {"type":"header","version":1,"sessionId":"…","cwd":"/work/app","createdAt":"2026-…"}
 * {"type":"user","ts":"…","prompt":true,"message":{"role":"user","content":"fix the test"}}
 * {"type":"assistant","ts":"…","turn":1,"message":{"role":"assistant","content":[…tool_use…]},"usage":{…}}
 * {"type":"tool_result","ts":"…","turn":1,"toolName":"Bash","result":{"type":"tool_result","tool_use_id":"…","content":"…"}}
 * {"type":"assistant","ts":"…","turn":2,"message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}
 * {"type":"hook","ts":"…","turn":1,"event":"PreToolUse","hook":"command ./guard.sh (…)","outcome":"success","decision":"deny","reason":"…"}
 * {"type":"run_end","ts":"…","subtype":"success","isError":false,"numTurns":2,"usage":{…},…}
 * ```
 *
 * History (`ConversationMessage[]`) is rebuilt from `user`, `assistant` and `tool_result` records
 * (after the last `compact_boundary`, which starts it with the compacted messages it holds):
 * consecutive `tool_result` records form the user message that answers the assistant message before
 * them. Readers ignore unknown record types and unknown fields (forward compatible); a header with
 * a higher `version` is refused.
 */

export const TRANSCRIPT_VERSION = 1;

export type HeaderRecord = {
  type: "header";
  version: number;
  sessionId: string;
  /** Absolute working directory of the session. */
  cwd: string;
  /** ISO time. */
  createdAt: string;
  /** Set on a fork: the session it was copied from. */
  forkedFrom?: { sessionId: string; forkedAt: string };
  /**
   * Set on a subagent's transcript (`<session>/subagents/agent-<agentId>.jsonl`, docs/agents.md):
   * which agent ran, for which Agent call of the session `sessionId`.
   */
  sidechain?: { agentId: string; agentType: string; parentToolUseId: string };
};

export type UserRecord = {
  type: "user";
  ts: string;
  /** True for a prompt typed by the user (as opposed to a copied tool-result message in a fork). */
  prompt?: boolean;
  message: { role: "user"; content: string | UserContentBlock[] };
  model?: string;
  permissionMode?: string;
  /**
   * A prompt's id (the SDK's user message `uuid`), under which the file checkpoints of its turn are
   * kept: a resumed session rewinds its files with it. Absent in transcripts written before it was.
   */
  userMessageId?: string;
};

export type AssistantRecord = {
  type: "assistant";
  ts: string;
  turn?: number;
  message: { role: "assistant"; content: AssistantContentBlock[] };
  /**
   * Each block's uuid (null where none is known), in content order: the `uuid` of the SDK message
   * that showed it, which `resumeSessionAt` takes (message-uuids.ts).
   */
  uuids?: (string | null)[];
  model?: string;
  messageId?: string;
  stopReason?: StopReason | null;
  usage?: Usage;
  /** How long the model call took, retries included (absent in older transcripts, as the next two). */
  durationMs?: number;
  /** USD cost of the call from the price table; null when the model's price is unknown. */
  costUsd?: number | null;
  /** The failed attempts before this call succeeded (`model_call_retry`), oldest first. */
  retries?: ModelRetry[];
  /** The primary model failed after its retries and this call was made by the fallback model. */
  fallback?: { from: string; to: string; error: string };
};

/** A failed attempt of a model call that was retried. */
export type ModelRetry = {
  /** The attempt that followed (2 for the first retry). */
  attempt: number;
  delayMs: number;
  errorStatus: number | null;
  error: string;
};

export type ToolResultRecord = {
  type: "tool_result";
  ts: string;
  turn?: number;
  toolName?: string;
  result: ToolResultBlock;
  /** Why it failed or did not run: "denied", "aborted", ... */
  errorKind?: string;
  durationMs?: number;
  /** A shell command's exit status (null: it ended by a signal or did not start); absent in older transcripts. */
  exitCode?: number | null;
};

/** The summary of one run (one prompt), written when the run ends. */
export type RunEndRecord = {
  type: "run_end";
  ts: string;
  subtype: string;
  isError: boolean;
  aborted: boolean;
  numTurns: number;
  usage: Usage;
  durationMs: number;
  durationApiMs: number;
  /** USD cost of the run, when the engine knew the model's price. */
  totalCostUsd?: number;
  permissionDenials: number;
  errors: string[];
  /** Usage and USD cost per provider model id (null: the price is unknown). */
  modelUsage?: Record<string, Usage>;
  modelCostUsd?: Record<string, number | null>;
  /** The attempts of a model call that failed for good (its error is in `errors`). */
  retries?: ModelRetry[];
};

/**
 * A hook that ran and what it decided (docs/hooks.md). Not part of the conversation: a resume skips
 * it. Its output, stdout and stderr are not kept (they may be large; the error says why it failed).
 */
export type HookRecord = {
  type: "hook";
  ts: string;
  turn?: number;
  event: string;
  hook: string;
  toolUseId?: string;
  outcome: "success" | "error" | "cancelled";
  decision?: string;
  reason?: string;
  error?: string;
  exitCode?: number;
  systemMessage?: string;
};

/**
 * The history was compacted (docs/context.md): from here on the conversation is `messages` (the
 * summary, then the recent turns verbatim) followed by the records after this one. The records
 * before it stay, for audit; `--resume` does not load them.
 */
export type CompactBoundaryRecord = {
  type: "compact_boundary";
  ts: string;
  trigger: "auto" | "manual";
  preTokens: number;
  postTokens: number;
  summary: string;
  messages: ConversationMessage[];
  /** Time the compaction took, the summary call included. */
  durationMs?: number;
  /** Per message, its blocks' uuids (as an assistant record's `uuids`; null for a message without). */
  uuids?: ((string | null)[] | null)[];
};

/**
 * The conversation was rewound to before one of its prompts (`Session.rewind`, the interactive
 * mode's Esc Esc): from here on it is `messages` (what was kept) followed by the records after this
 * one, as after a `compact_boundary`. The records before it stay, for audit; `--resume` continues
 * the rewound conversation.
 */
export type RewindRecord = {
  type: "rewind";
  ts: string;
  /** The messages taken out of the conversation. */
  removed: number;
  messages: ConversationMessage[];
  uuids?: ((string | null)[] | null)[];
  /** Each kept message's prompt id (`UserRecord.userMessageId`), null where none is known. */
  promptIds?: (string | null)[];
};

/** Written when a session is reopened after a crash cut its last line short: that line is to be ignored. */
export type RepairRecord = { type: "repair"; ts: string; note: string };

export type TranscriptRecord =
  | HeaderRecord
  | UserRecord
  | AssistantRecord
  | ToolResultRecord
  | RunEndRecord
  | HookRecord
  | CompactBoundaryRecord
  | RewindRecord
  | RepairRecord;

/** Serialises a record as one line (with its newline). `type` is the first key. */
export function serializeRecord(record: TranscriptRecord): string {
  return `${JSON.stringify(record)}\n`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks the shape of a parsed line. Returns the record, or why it is not one. */
export function validateRecord(
  value: unknown,
): { record: TranscriptRecord } | { problem: string } | { unknownType: string } {
  if (!isObject(value)) return { problem: "not a JSON object" };
  const type = value.type;
  if (typeof type !== "string") return { problem: "no record type" };
  switch (type) {
    case "header":
      if (
        typeof value.sessionId !== "string" ||
        typeof value.cwd !== "string" ||
        typeof value.version !== "number"
      )
        return { problem: "header without sessionId, cwd or version" };
      return { record: value as HeaderRecord };
    case "user":
    case "assistant": {
      const message = value.message;
      if (!isObject(message) || message.role !== type)
        return { problem: `${type} record without a ${type} message` };
      const content = message.content;
      if (type === "assistant" && !Array.isArray(content))
        return { problem: "assistant content is not a list" };
      if (type === "user" && typeof content !== "string" && !Array.isArray(content))
        return { problem: "user content is neither text nor a list" };
      if (
        Array.isArray(content) &&
        content.some((block) => !isObject(block) || typeof block.type !== "string")
      )
        return { problem: "a content block has no type" };
      return { record: value as UserRecord | AssistantRecord };
    }
    case "tool_result": {
      const result = value.result;
      if (!isObject(result) || result.type !== "tool_result" || typeof result.tool_use_id !== "string")
        return { problem: "tool_result record without a tool_result block" };
      return { record: value as ToolResultRecord };
    }
    case "run_end":
      return { record: value as RunEndRecord };
    case "repair":
      return { record: value as RepairRecord };
    case "hook":
      return typeof value.event === "string" && typeof value.hook === "string"
        ? { record: value as HookRecord }
        : { problem: "hook record without event or hook" };
    case "compact_boundary":
    case "rewind": {
      const messages = value.messages;
      if (
        !Array.isArray(messages) ||
        messages.some((m) => !isObject(m) || (m.role !== "user" && m.role !== "assistant"))
      )
        return { problem: `${type} record without its messages` };
      return { record: value as CompactBoundaryRecord | RewindRecord };
    }
    default:
      return { unknownType: type };
  }
}

export type HistoryWarning = { message: string };

/**
 * Rebuilds the conversation from message records, repairing what a crash or a corrupt line can
 * leave behind, the same way the engine does after an abort:
 * - an assistant `tool_use` without a result gets an error result ("interrupted"), like the engine's
 *   own clean-up, so the history stays valid for the model API;
 * - a `tool_result` whose `tool_use` is missing (its line was corrupt) is dropped;
 * - results are put in the order of their `tool_use` blocks;
 * - assistant messages with no content are dropped; consecutive user messages are merged.
 */
export function rebuildHistory(
  records: readonly (UserRecord | AssistantRecord | ToolResultRecord)[],
  warnings: HistoryWarning[],
): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  let pending: ToolResultBlock[] = [];
  const flush = () => {
    if (pending.length > 0) messages.push({ role: "user", content: pending });
    pending = [];
  };
  for (const record of records) {
    if (record.type === "tool_result") {
      pending.push(record.result);
      continue;
    }
    flush();
    if (record.type === "assistant") {
      const content = record.message.content.filter(Boolean);
      if (content.length === 0) continue;
      messages.push({ role: "assistant", content });
    } else {
      messages.push({ role: "user", content: record.message.content });
    }
  }
  flush();
  return mergeUsers(pairToolResults(messages, warnings));
}

const INTERRUPTED = "The tool call was interrupted (no result was recorded).";

function pairToolResults(messages: ConversationMessage[], warnings: HistoryWarning[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i]!;
    if (message.role === "assistant") {
      out.push(message);
      const uses = message.content.filter((block) => block.type === "tool_use");
      if (uses.length === 0) continue;
      const next = messages[i + 1];
      const nextBlocks: UserContentBlock[] =
        next?.role === "user" && Array.isArray(next.content) ? next.content : [];
      const results = new Map<string, ToolResultBlock>();
      const others: UserContentBlock[] = [];
      for (const block of nextBlocks) {
        if (block.type === "tool_result") {
          if (uses.some((use) => use.id === block.tool_use_id) && !results.has(block.tool_use_id))
            results.set(block.tool_use_id, block);
          else
            warnings.push({
              message: `dropped a tool result with no matching tool call (${block.tool_use_id})`,
            });
        } else {
          others.push(block);
        }
      }
      const ordered: UserContentBlock[] = uses.map((use) => {
        const found = results.get(use.id);
        if (found) return found;
        warnings.push({
          message: `tool call ${use.id} (${use.name}) has no recorded result; marked as interrupted`,
        });
        return { type: "tool_result", tool_use_id: use.id, content: INTERRUPTED, is_error: true };
      });
      out.push({ role: "user", content: [...ordered, ...others] });
      if (next?.role === "user" && Array.isArray(next.content)) i += 1;
      else if (next?.role === "user") {
        out.push(next);
        i += 1;
      }
      continue;
    }
    if (Array.isArray(message.content)) {
      const kept = message.content.filter((block) => {
        if (block.type !== "tool_result") return true;
        warnings.push({ message: `dropped a tool result with no matching tool call (${block.tool_use_id})` });
        return false;
      });
      if (kept.length === 0) continue;
      out.push({ role: "user", content: kept });
    } else {
      out.push(message);
    }
  }
  return out;
}

function mergeUsers(messages: ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === "user" && last?.role === "user") {
      out[out.length - 1] = {
        role: "user",
        content: [...asBlocks(last.content), ...asBlocks(message.content)],
      };
    } else {
      out.push(message);
    }
  }
  return out;
}

function asBlocks(content: string | UserContentBlock[]): UserContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}
