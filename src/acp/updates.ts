import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type {
  AssistantBlockEvent,
  EngineEvent,
  ModelCallRetryEvent,
  ToolEndEvent,
} from "../engine/events.js";
import { hookFailureText } from "../engine/hooks.js";
import {
  type AssistantContentBlock,
  type ConversationMessage,
  contentText,
  mediaPlaceholder,
  type ToolResultBlock,
} from "../engine/messages.js";
import { ServerSearchEvents } from "../engine/server-search.js";
import { toToolResult } from "../engine/tool-result.js";
import type { SessionEvent } from "../session/events.js";
import { backgroundEndSummary, backgroundShellEvent } from "../tools/background-shell-events.js";
import type { ToolDisplay } from "../tools/types.js";
import { isPlanTool, planEntries, resultContent, toolCallFields } from "./tool-calls.js";

/** How the session shows a call (`live`: it has not run yet). */
export type Describe = (name: string, input: Record<string, unknown>, live: boolean) => ToolDisplay;

/** What the client said it can show (ACP `clientCapabilities.session`). */
export type ClientShows = {
  notices: boolean;
  compaction: boolean;
  /** Form elicitation (`clientCapabilities.elicitation.form`): AskUserQuestion is asked as a form. */
  forms?: boolean;
};

/**
 * Turns a session's events into ACP `session/update`s (`project`), and a stored conversation into
 * the updates a client shows it with (`replay`, for `session/load`). The only state is which tool
 * each call id belongs to (a tool result names only the id), which calls are shown running, and the
 * compaction under way.
 *
 * Live text and thinking come from the stream's deltas; a tool call is announced when its block is
 * complete (before it runs, with a Write's or Edit's diff) and updated when it ends; a subagent's
 * tool calls are shown like the parent's. TodoWrite calls become the `plan`. What is not part of
 * the answer — retries, a fallback model, compaction, hooks' messages and failures, the session's
 * notices — is a `notice` (or `compaction_update`) where the client can show one, else a line of
 * thought, so an editor's user sees why a turn waits.
 */
export class UpdateProjection {
  /** Each call's tool and how it was shown. */
  private readonly tools = new Map<string, { name: string; kind: ToolDisplay["kind"] }>();
  /** Calls already shown as running. */
  private readonly running = new Set<string>();
  private compactions = 0;
  /** The provider's searches, shown as WebSearch calls (src/engine/server-search.ts). */
  private readonly searches = new ServerSearchEvents();
  /** Background shells still shown running: the Bash call that started each, by shell id. */
  private readonly shells = new Map<string, string>();

  constructor(
    private readonly describe: Describe,
    private readonly shows: ClientShows = { notices: false, compaction: false },
  ) {}

  project(event: SessionEvent): SessionUpdate[] {
    switch (event.type) {
      case "stream": {
        const stream = event.event;
        if (stream.type !== "content_block_delta") return [];
        if (stream.delta.type === "text_delta") return [chunk("agent_message_chunk", stream.delta.text)];
        if (stream.delta.type === "thinking_delta")
          return [chunk("agent_thought_chunk", stream.delta.thinking)];
        return [];
      }
      case "assistant_block": {
        if (event.block.type === "tool_use") return this.toolCall(event.block, { live: true });
        // A search the provider ran: a WebSearch call, completed with its results.
        const search = this.searches.of(event, 0);
        if (search?.type === "tool_start")
          return this.toolCall(
            { id: search.toolUseId, name: search.name, input: search.input },
            { live: true },
          );
        return search ? this.toolEnd(search) : [];
      }
      case "tool_end":
        return this.toolEnd(event);
      case "subagent":
        return this.subagent(event.event);
      case "model_call_retry":
        return this.notice("warning", retryText(event));
      case "model_fallback":
        return this.notice(
          "warning",
          `${event.from} is unavailable (${event.error}); continuing with ${event.to}.`,
        );
      case "hook_result": {
        const { record } = event;
        return [
          ...(record.error ? this.notice("warning", hookFailureText(record)) : []),
          ...(record.systemMessage
            ? this.notice("info", `${record.event} hook ${record.hookName}: ${record.systemMessage}`)
            : []),
        ];
      }
      case "compaction_status":
        return this.compaction(
          event.phase === "start" ? "in_progress" : event.compacted ? "completed" : "failed",
        );
      case "compact_boundary":
        return this.shows.compaction
          ? [
              {
                sessionUpdate: "compaction_update",
                compactionId: this.compactionId(),
                status: "in_progress",
                summary: [{ type: "text", text: event.summary }],
              },
            ]
          : [];
      case "session_notice":
        return this.notice("warning", event.content);
      case "permission_mode_changed":
        return [{ sessionUpdate: "current_mode_update", currentModeId: event.mode }];
      default:
        return [];
    }
  }

  /** A call the user allowed runs now: an editor shows it running rather than waiting for approval. */
  started(toolUseId: string): SessionUpdate[] {
    if (this.running.has(toolUseId) || isPlanTool(this.tools.get(toolUseId)?.name ?? "")) return [];
    this.running.add(toolUseId);
    return [{ sessionUpdate: "tool_call_update", toolCallId: toolUseId, status: "in_progress" }];
  }

  /** A stored conversation as the updates a client shows it with (tool calls complete with output). */
  replay(history: ConversationMessage[]): SessionUpdate[] {
    return history.flatMap((message): SessionUpdate[] => {
      if (message.role === "assistant") return message.content.flatMap((block) => this.storedBlock(block));
      if (typeof message.content === "string") return [chunk("user_message_chunk", message.content)];
      return message.content.flatMap((block) =>
        block.type === "text"
          ? [chunk("user_message_chunk", block.text)]
          : block.type === "tool_result"
            ? this.toolResult(block, undefined)
            : [chunk("user_message_chunk", mediaPlaceholder(block))],
      );
    });
  }

  private storedBlock(block: AssistantContentBlock): SessionUpdate[] {
    if (block.type === "text") return [chunk("agent_message_chunk", block.text)];
    if (block.type === "thinking") return [chunk("agent_thought_chunk", block.thinking)];
    if (block.type === "tool_use") return this.toolCall(block, { live: false });
    const stored = { type: "assistant_block", turn: 0, block } as AssistantBlockEvent;
    const search = this.searches.of(stored, 0);
    if (search?.type === "tool_start")
      return this.toolCall({ id: search.toolUseId, name: search.name, input: search.input }, { live: false });
    return search ? this.toolEnd(search) : [];
  }

  private toolCall(
    block: { id: string; name: string; input: Record<string, unknown> },
    { live }: { live: boolean },
  ): SessionUpdate[] {
    if (isPlanTool(block.name)) {
      this.tools.set(block.id, { name: block.name, kind: "think" });
      return [{ sessionUpdate: "plan", entries: planEntries(block.input) }];
    }
    // A stored Write's "before" is gone (the file holds what it wrote): only a live one reads it.
    const display = this.describe(block.name, block.input, live);
    this.tools.set(block.id, { name: block.name, kind: display.kind });
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: block.id,
        ...toolCallFields(display),
        status: "pending",
        rawInput: block.input,
      },
    ];
  }

  private toolEnd(event: ToolEndEvent): SessionUpdate[] {
    const { outcome } = event;
    const structured = !outcome.isError && outcome.data !== undefined;
    const updates = this.toolResult(
      toToolResult(event.toolUseId, outcome),
      structured ? outcome.data : outcome.content,
    );
    const shell = backgroundShellEvent(event.name, event.input, outcome);
    if (shell?.kind === "started") {
      // A background command: its call stays running, with what it said, until it is seen to end.
      this.shells.set(shell.shellId, event.toolUseId);
      return updates.map((update) => ({ ...update, status: "in_progress" }) as SessionUpdate);
    }
    const launch = shell?.kind === "ended" ? this.shells.get(shell.shellId) : undefined;
    if (shell?.kind !== "ended" || launch === undefined) return updates;
    this.shells.delete(shell.shellId);
    const ended: SessionUpdate = {
      sessionUpdate: "tool_call_update",
      toolCallId: launch,
      status: shell.status === "failed" ? "failed" : "completed",
      content: [{ type: "content", content: { type: "text", text: backgroundEndSummary(shell) } }],
    };
    return [...updates, ended];
  }

  /** A subagent's tool calls and results, shown like the parent's (its text stays its own). */
  private subagent(event: EngineEvent): SessionUpdate[] {
    if (event.type === "assistant_block" && event.block.type === "tool_use")
      return this.toolCall(event.block, { live: true });
    if (event.type === "tool_end") return this.toolEnd(event);
    if (event.type === "subagent") return this.subagent(event.event);
    return [];
  }

  private notice(severity: "info" | "warning", text: string): SessionUpdate[] {
    if (this.shows.notices) return [{ sessionUpdate: "notice", severity, title: text }];
    return [chunk("agent_thought_chunk", `\n[cairn] ${text}\n`)];
  }

  private compaction(status: "in_progress" | "completed" | "failed"): SessionUpdate[] {
    if (status === "in_progress") this.compactions += 1;
    if (this.shows.compaction)
      return [{ sessionUpdate: "compaction_update", compactionId: this.compactionId(), status }];
    if (status === "in_progress") return this.notice("info", "Compacting the conversation…");
    return this.notice(
      status === "completed" ? "info" : "warning",
      status === "completed" ? "The conversation was compacted." : "The conversation could not be compacted.",
    );
  }

  private compactionId(): string {
    return `compaction-${this.compactions}`;
  }

  private toolResult(block: ToolResultBlock, rawOutput: unknown): SessionUpdate[] {
    const tool = this.tools.get(block.tool_use_id) ?? { name: "", kind: "other" };
    if (isPlanTool(tool.name)) return [];
    const output = contentText(block.content);
    const failed = block.is_error === true;
    // A successful edit keeps the diff it was announced with; anything else shows its output.
    const keepDiff = !failed && tool.kind === "edit";
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: block.tool_use_id,
        status: failed ? "failed" : "completed",
        ...(keepDiff ? {} : { content: resultContent(tool.kind, output) }),
        rawOutput: rawOutput ?? output,
      },
    ];
  }
}

function chunk(
  sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  text: string,
): SessionUpdate {
  return { sessionUpdate, content: { type: "text", text } };
}

function retryText(event: ModelCallRetryEvent): string {
  const cause = event.errorStatus !== null ? `HTTP ${event.errorStatus}` : event.error;
  const wait = (event.delayMs / 1000).toFixed(1);
  return `The model call failed (${cause}); retrying in ${wait} s (attempt ${event.attempt} of ${event.maxRetries + 1}).`;
}
