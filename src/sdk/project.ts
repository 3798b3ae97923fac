import { randomUUID } from "node:crypto";
import type {
  AssistantBlockEvent,
  EngineEvent,
  ModelCallRetryEvent,
  RunEndEvent,
  RunStartEvent,
  RunSubtype,
  SubagentEvent,
  ToolEndEvent,
} from "../engine/events.js";
import { type HookRunRecord, hookFailureText } from "../engine/hooks.js";
import type { AssistantContentBlock, ModelStreamEvent, Usage } from "../engine/messages.js";
import type { RateLimitReport } from "../engine/provider.js";
import { toToolResult } from "../engine/tool-result.js";
import { findModel } from "../providers/catalog.js";
import { toolResultUuid } from "../sessions/derived-uuids.js";
import { backgroundEndSummary, backgroundShellEvent } from "../tools/background-shell-events.js";
import type {
  ApiKeySource,
  ModelUsage,
  NonNullableUsage,
  PermissionMode,
  SDKAPIRetryMessage,
  SDKAssistantContentBlock,
  SDKAssistantMessage,
  SDKAssistantMessageError,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKRateLimitEvent,
  SDKRawMessageStreamEvent,
  SDKResultMessage,
  SDKStatusMessage,
  SDKSubagentOrigin,
  SDKSystemMessage,
  SDKTaskNotificationMessage,
  SDKTaskProgressMessage,
  SDKTaskStartedMessage,
  SDKToolResultBlock,
  SDKUsage,
  SDKUserMessage,
  UUID,
} from "./messages.js";

export type SdkProjectionOptions = {
  /** Add `stream_event` messages (the `includePartialMessages` option). */
  includePartialMessages: boolean;
  /** The engine's version, reported as `system`/`init.claude_code_version`. */
  version: string;
  /** Add `hook_started` / `hook_progress` / `hook_response` messages (the `includeHookEvents` option). */
  includeHookEvents?: boolean;
  /** Add subagents' text and thinking (`assistant`, `stream_event`) besides their tool calls (`forwardSubagentText`). */
  forwardSubagentText?: boolean;
  /** Message ids; injectable so tests can make the projection deterministic. */
  uuid?: () => UUID;
};

/**
 * `run_end` as the SDK completes it: with `outputFormat`, the structured-output outcome may change the
 * subtype and adds the delivered value (`structuredOutput`, present only when one was delivered).
 */
export type SdkRunEnd = Omit<RunEndEvent, "subtype"> & {
  subtype: RunSubtype | "error_max_structured_output_retries";
  structuredOutput?: unknown;
};

/** Projects one engine event to the SDK messages it produces (often none). */
export type SdkProjection = { project(event: Exclude<EngineEvent, RunEndEvent> | SdkRunEnd): SDKMessage[] };

// The engine's shapes must stay assignable to the published SDK contract.
type Assignable<T extends U, U> = T;
export type _EngineStreamEventFitsContract = Assignable<ModelStreamEvent, SDKRawMessageStreamEvent>;
export type _EngineBlockFitsContract = Assignable<AssistantContentBlock, SDKAssistantContentBlock>;

/**
 * The SDK dialect as a pure projection of the engine's events (no I/O; the only state is what a
 * turn needs to remember: its session id and the last stop reason).
 *
 * - `run_start` → `system`/`init`
 * - `stream` → `stream_event` (only with `includePartialMessages`)
 * - `assistant_block` → `assistant` (one completed block, with the block's uuid)
 * - `model_call_retry` → `system`/`api_retry`
 * - `model_call_end` with a rate-limit report → `rate_limit_event` (when the state changed)
 * - `compaction_status` → `system`/`status` (`compacting`, then `null` with `compact_result`)
 * - `tool_end` → `user` with the `tool_result` block and `tool_use_result` (its uuid derived from the
 *   tool call's id: the transcript has it, so `resumeSessionAt` can name the message)
 * - `hook_result` → `hook_started`, `hook_progress`, `hook_response` (only with `includeHookEvents`),
 *   and a `system`/`informational` message (tag `hook`) for a hook's `systemMessage` or failure
 * - `compact_boundary` → `system`/`compact_boundary`
 * - `model_fallback` → `system`/`informational` (level `warning`, tag `model_fallback`)
 * - `run_end` → `result`, after an `assistant` message with `error` when a model call failed for good
 * - `subagent` (docs/agents.md) → `system`/`task_started` at its start, its tool calls' `assistant` and
 *   `user` messages with `parent_tool_use_id` = the Agent call's id (and `agent_id`, `subagent_type`,
 *   `task_description`), a `system`/`task_progress` after each of its tool results,
 *   `system`/`task_notification` at its end; its text and thinking (`assistant`, and `stream_event`
 *   with `includePartialMessages`) only with `forwardSubagentText`, as the convention's CLI does
 *   (the pinned SDK's doc comment of the option: "By default, only tool_use/tool_result blocks from
 *   subagents are emitted")
 *
 * Payloads are copied, so a consumer mutating a message cannot change the engine's conversation.
 */
export function createSdkProjection(options: SdkProjectionOptions): SdkProjection {
  const uuid = options.uuid ?? (() => randomUUID());
  let sessionId = "";
  let model = "";
  let stopReason: string | null = null;
  let compacting = false;
  let lastRateLimit = "";
  const status = (
    fields: Omit<SDKStatusMessage, "type" | "subtype" | "uuid" | "session_id">,
  ): SDKStatusMessage => ({
    type: "system",
    subtype: "status",
    ...fields,
    uuid: uuid(),
    session_id: sessionId,
  });

  const tasks = new Map<string, TaskProgress>();
  /** The session's background shells, by id: the Bash call that started each (ended ones removed). */
  const shells = new Map<string, string>();

  /**
   * A background shell as a task, as the reference lists its background commands (`task_type`
   * `local_bash`): `task_started` when a Bash call starts one, `task_notification` when a BashOutput
   * or TaskStop call first finds it ended (src/tools/background-shell-events.ts).
   */
  const backgroundTasks = (event: ToolEndEvent): SDKMessage[] => {
    const shell = backgroundShellEvent(event.name, event.input, event.outcome);
    if (!shell) return [];
    if (shell.kind === "started") {
      shells.set(shell.shellId, event.toolUseId);
      const started: SDKTaskStartedMessage = {
        type: "system",
        subtype: "task_started",
        task_id: shell.shellId,
        tool_use_id: event.toolUseId,
        description: shell.description ?? shell.command,
        task_type: "local_bash",
        uuid: uuid(),
        session_id: sessionId,
      };
      return [started];
    }
    const launch = shells.get(shell.shellId);
    if (launch === undefined) return [];
    shells.delete(shell.shellId);
    const notification: SDKTaskNotificationMessage = {
      type: "system",
      subtype: "task_notification",
      task_id: shell.shellId,
      tool_use_id: launch,
      status: shell.status === "killed" ? "stopped" : shell.status,
      output_file: "",
      summary: backgroundEndSummary(shell),
      uuid: uuid(),
      session_id: sessionId,
    };
    return [notification];
  };

  /** A subagent's event: its own messages, marked with the Agent call that runs it. */
  const projectSubagent = (report: SubagentEvent): SDKMessage[] => {
    const { event } = report;
    // On its assistant and user messages: which subagent (the convention's CLI marks them so).
    const origin: SDKSubagentOrigin = {
      agent_id: report.agentId,
      subagent_type: report.agentType,
      task_description: report.description,
    };
    const base = {
      task_id: report.agentId,
      tool_use_id: report.toolUseId,
      uuid: uuid(),
      session_id: sessionId,
    };
    switch (event.type) {
      case "run_start": {
        tasks.set(report.agentId, { startedAt: event.startedAt, toolUses: 0, tokens: 0 });
        const started: SDKTaskStartedMessage = {
          type: "system",
          subtype: "task_started",
          ...base,
          description: report.description,
          subagent_type: report.agentType,
          task_type: "local_agent",
          prompt: event.prompt,
        };
        return [started];
      }
      case "model_call_end": {
        const task = tasks.get(report.agentId);
        if (task) task.tokens += event.message.usage.input_tokens + event.message.usage.output_tokens;
        return [];
      }
      case "tool_end": {
        const task = tasks.get(report.agentId) ?? { startedAt: event.endedAt, toolUses: 0, tokens: 0 };
        task.toolUses += 1;
        const progress: SDKTaskProgressMessage = {
          type: "system",
          subtype: "task_progress",
          ...base,
          description: report.description,
          subagent_type: report.agentType,
          usage: {
            total_tokens: task.tokens,
            tool_uses: task.toolUses,
            duration_ms: Math.max(0, event.endedAt - task.startedAt),
          },
          last_tool_name: event.name,
        };
        return [
          { ...toolResultMessage(event, sessionId, uuid(), report.toolUseId), ...origin },
          progress,
          ...backgroundTasks(event),
        ];
      }
      case "run_end": {
        const task = tasks.get(report.agentId);
        tasks.delete(report.agentId);
        const notification: SDKTaskNotificationMessage = {
          type: "system",
          subtype: "task_notification",
          ...base,
          status: event.aborted ? "stopped" : event.isError ? "failed" : "completed",
          output_file: report.transcriptPath,
          summary: event.isError ? event.errors.join(" ") : event.finalText || event.result,
          usage: {
            total_tokens: event.usage.input_tokens + event.usage.output_tokens,
            tool_uses: task?.toolUses ?? 0,
            duration_ms: event.durationMs,
          },
        };
        return [notification];
      }
      case "assistant_block":
        if (event.block.type !== "tool_use" && !options.forwardSubagentText) return [];
        return [{ ...assistantMessage(event, sessionId, report.toolUseId), ...origin }];
      case "stream":
        return options.forwardSubagentText ? project(event, report.toolUseId) : [];
      case "turn_end":
        return [];
      default:
        return project(event, report.toolUseId);
    }
  };

  const project = (
    event: Exclude<EngineEvent, RunEndEvent> | SdkRunEnd,
    parent: string | null = null,
  ): SDKMessage[] => {
    switch (event.type) {
      case "run_start":
        sessionId = event.sessionId;
        model = event.model;
        stopReason = null;
        return [systemInit(event, options.version, uuid())];
      case "stream": {
        if (!options.includePartialMessages) return [];
        const message: SDKPartialAssistantMessage = {
          type: "stream_event",
          event: structuredClone(event.event),
          parent_tool_use_id: parent,
          uuid: uuid(),
          session_id: sessionId,
        };
        return [message];
      }
      case "assistant_block":
        return [assistantMessage(event, sessionId, parent)];
      case "model_call_retry":
        return [apiRetry(event, sessionId, uuid())];
      case "model_call_end": {
        const report = event.rateLimit;
        const key = report ? `${report.status}/${report.limit}` : "";
        if (!report || key === lastRateLimit) return [];
        lastRateLimit = key;
        return [rateLimitEvent(report, sessionId, uuid())];
      }
      case "compaction_status":
        if (event.phase === "start") {
          compacting = true;
          return [status({ status: "compacting" })];
        }
        compacting = false;
        return [status({ status: null, compact_result: event.compacted ? "success" : "failed" })];
      case "turn_end":
        stopReason = event.stopReason;
        return [];
      case "tool_end":
        // Named by its tool call, so that resumeSessionAt finds it in the transcript.
        return [
          toolResultMessage(event, sessionId, toolResultUuid(event.toolUseId) as UUID, parent),
          ...backgroundTasks(event),
        ];
      case "subagent":
        return projectSubagent(event);
      case "hook_result":
        return hookMessages(event.record, sessionId, options.includeHookEvents === true, uuid);
      case "compact_boundary":
        return [
          {
            type: "system",
            subtype: "compact_boundary",
            compact_metadata: {
              trigger: event.trigger,
              pre_tokens: event.preTokens,
              post_tokens: event.postTokens,
              duration_ms: event.durationMs,
            },
            uuid: uuid(),
            session_id: sessionId,
          },
        ];
      case "model_fallback":
        return [
          {
            type: "system",
            subtype: "informational",
            content: `${event.from} is unavailable (${event.error}); continuing with ${event.to}.`,
            level: "warning",
            tag: "model_fallback",
            uuid: uuid(),
            session_id: sessionId,
          },
        ];
      case "run_end": {
        const before: SDKMessage[] = [];
        if (compacting) {
          compacting = false;
          before.push(
            status({ status: null, compact_result: "failed", compact_error: event.errors.at(-1) ?? "" }),
          );
        }
        if (event.apiError) before.push(apiErrorMessage(event, model, sessionId, uuid()));
        return [...before, resultMessage(event, stopReason, uuid())];
      }
      default:
        return [];
    }
  };
  return { project: (event) => project(event) };
}

/**
 * Whether a subagent's text and thinking are yielded: the `forwardSubagentText` option, else
 * `CLAUDE_CODE_FORWARD_SUBAGENT_TEXT` (`1` or `true`) in the query's environment, which the
 * convention's CLI reads too (its flag `--forward-subagent-text` sets the option).
 */
export function forwardsSubagentText(
  option: boolean | undefined,
  env: { [name: string]: string | undefined },
): boolean {
  if (option !== undefined) return option;
  const value = env.CLAUDE_CODE_FORWARD_SUBAGENT_TEXT?.trim().toLowerCase();
  return value === "1" || value === "true";
}

/** What a running subagent's `task_progress` counts. */
type TaskProgress = { startedAt: number; toolUses: number; tokens: number };

/** One block as an `assistant` message, under the block's own uuid (kept in the transcript). */
function assistantMessage(
  event: AssistantBlockEvent,
  sessionId: string,
  parent: string | null,
): SDKAssistantMessage {
  return {
    type: "assistant",
    message: {
      id: event.messageId,
      type: "message",
      role: "assistant",
      model: event.model,
      content: [structuredClone(event.block)],
      stop_reason: null,
      stop_sequence: null,
      usage: sdkUsage(event.usage),
    },
    parent_tool_use_id: parent,
    uuid: event.uuid as UUID,
    session_id: sessionId,
  };
}

function systemInit(event: RunStartEvent, version: string, id: UUID): SDKSystemMessage {
  return {
    type: "system",
    subtype: "init",
    cwd: event.cwd,
    session_id: event.sessionId,
    tools: [...event.tools],
    mcp_servers: event.mcpServers ? event.mcpServers.map((server) => ({ ...server })) : [],
    model: event.model,
    permissionMode: event.permissionMode as PermissionMode,
    slash_commands: [...(event.slashCommands ?? [])],
    apiKeySource: apiKeySource(event.apiKeySource, event.model),
    claude_code_version: version,
    output_style: "default",
    agents: event.agents ? [...event.agents] : [],
    skills: [...(event.skills ?? [])],
    plugins: (event.plugins ?? []).map((plugin) => ({ ...plugin })),
    uuid: id,
  };
}

/**
 * The engine says how the key came (`env`, `flag`, `none`); the convention names the variable. The
 * run_start event does not carry the variable's name yet, so it is derived from the model's provider:
 * `anthropic/…` and bare `claude-…` ids → `ANTHROPIC_API_KEY`, `openai/…` and bare `gpt-…` →
 * `OPENAI_API_KEY`, any other `name/…` → `NAME_API_KEY`.
 */
function apiKeySource(source: RunStartEvent["apiKeySource"], model: string): ApiKeySource {
  if (source === "flag") return "option";
  if (source === "none") return "none";
  const slash = model.indexOf("/");
  const prefix = slash === -1 ? (model.startsWith("gpt-") ? "openai" : "anthropic") : model.slice(0, slash);
  return `${prefix.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
}

/** The convention's stand-in for a failed model call: the error as assistant text, with its category. */
function apiErrorMessage(end: SdkRunEnd, model: string, sessionId: string, id: UUID): SDKAssistantMessage {
  return {
    type: "assistant",
    message: {
      id: `msg_error_${id}`,
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text: `API Error: ${end.errors.at(-1) ?? "the model call failed"}` }],
      stop_reason: "stop_sequence",
      stop_sequence: null,
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
      },
    },
    parent_tool_use_id: null,
    error: errorCategory(end.apiError?.status ?? null),
    uuid: id,
    session_id: sessionId,
  };
}

function rateLimitEvent(report: RateLimitReport, sessionId: string, id: UUID): SDKRateLimitEvent {
  return {
    type: "rate_limit_event",
    rate_limit_info: {
      status: report.status,
      utilization: report.utilization,
      limit: report.limit,
      ...(report.resetsAt !== undefined ? { resetsAt: report.resetsAt } : {}),
    },
    uuid: id,
    session_id: sessionId,
  };
}

function apiRetry(event: ModelCallRetryEvent, sessionId: string, id: UUID): SDKAPIRetryMessage {
  return {
    type: "system",
    subtype: "api_retry",
    // The convention counts retries (1 for the first); the engine counts attempts (2 for the first retry).
    attempt: event.attempt - 1,
    max_retries: event.maxRetries,
    retry_delay_ms: event.delayMs,
    error_status: event.errorStatus,
    error: errorCategory(event.errorStatus),
    error_message: event.error,
    uuid: id,
    session_id: sessionId,
  };
}

/** The convention's error category for an HTTP status (`null`: connection problem, cut or idle stream). */
function errorCategory(status: number | null): SDKAssistantMessageError {
  if (status === null) return "unknown";
  if (status === 401 || status === 403) return "authentication_failed";
  if (status === 402) return "billing_error";
  if (status === 404) return "model_not_found";
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status >= 500) return "server_error";
  if (status >= 400) return "invalid_request";
  return "unknown";
}

function toolResultMessage(
  event: ToolEndEvent,
  sessionId: string,
  id: UUID,
  parent: string | null = null,
): SDKUserMessage {
  const block: SDKToolResultBlock = toToolResult(event.toolUseId, event.outcome);
  const structured = !event.outcome.isError && event.outcome.data !== undefined;
  return {
    type: "user",
    message: { role: "user", content: [block] },
    parent_tool_use_id: parent,
    tool_use_result: structured ? structuredClone(event.outcome.data) : event.outcome.content,
    uuid: id,
    session_id: sessionId,
  };
}

/** The messages of one hook run (see `createSdkProjection`). */
export function hookMessages(
  record: HookRunRecord,
  sessionId: string,
  verbose: boolean,
  uuid: () => UUID = () => randomUUID(),
): SDKMessage[] {
  const messages: SDKMessage[] = [];
  const names = { hook_id: record.hookId, hook_name: record.hookName, hook_event: record.event };
  if (verbose) {
    messages.push({ type: "system", subtype: "hook_started", ...names, uuid: uuid(), session_id: sessionId });
    const { stdout, stderr, output } = record;
    if (stdout || stderr) {
      messages.push({
        type: "system",
        subtype: "hook_progress",
        ...names,
        stdout,
        stderr,
        output,
        uuid: uuid(),
        session_id: sessionId,
      });
    }
    messages.push({
      type: "system",
      subtype: "hook_response",
      ...names,
      output,
      stdout,
      stderr,
      ...(record.exitCode !== undefined ? { exit_code: record.exitCode } : {}),
      outcome: record.outcome,
      ...(record.decision ? { decision: record.decision } : {}),
      ...(record.reason ? { reason: record.reason } : {}),
      ...(record.error ? { error: record.error } : {}),
      uuid: uuid(),
      session_id: sessionId,
    });
  }
  const note = (content: string, level: "info" | "warning") =>
    messages.push({
      type: "system",
      subtype: "informational",
      content,
      level,
      tag: "hook",
      uuid: uuid(),
      session_id: sessionId,
    });
  if (record.error) note(hookFailureText(record), "warning");
  if (record.systemMessage) note(record.systemMessage, "info");
  return messages;
}

function resultMessage(end: SdkRunEnd, stopReason: string | null, id: UUID): SDKResultMessage {
  const common = {
    type: "result" as const,
    duration_ms: end.durationMs,
    duration_api_ms: end.durationApiMs,
    num_turns: end.numTurns,
    stop_reason: stopReason,
    session_id: end.sessionId,
    total_cost_usd: end.totalCostUsd ?? Number.NaN,
    usage: totalUsage(end.usage),
    modelUsage: Object.fromEntries(
      Object.entries(end.modelUsage).map(([model, usage]) => [
        model,
        modelUsage(model, usage, end.modelCostUsd[model] ?? Number.NaN),
      ]),
    ),
    permission_denials: end.permissionDenials.map((denial) => ({
      ...denial,
      tool_input: structuredClone(denial.tool_input),
    })),
    uuid: id,
  };
  if (end.subtype === "success") {
    return {
      ...common,
      subtype: "success",
      is_error: false,
      result: end.finalText,
      ...("structuredOutput" in end ? { structured_output: structuredClone(end.structuredOutput) } : {}),
    };
  }
  return { ...common, subtype: end.subtype, is_error: true, errors: [...end.errors] };
}

function sdkUsage(usage: Usage): SDKUsage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
  };
}

function totalUsage(usage: Usage): NonNullableUsage {
  const searches = usage.server_tool_use?.web_search_requests ?? 0;
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    // The reference's result carries it always; cairn's only once the provider searched.
    ...(searches > 0 ? { server_tool_use: { web_search_requests: searches, web_fetch_requests: 0 } } : {}),
  };
}

function modelUsage(model: string, usage: Usage, costUSD: number): ModelUsage {
  const entry = findModel(model);
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
    webSearchRequests: usage.server_tool_use?.web_search_requests ?? 0,
    costUSD,
    contextWindow: entry?.contextWindow ?? 0,
    maxOutputTokens: entry?.maxOutput ?? 0,
  };
}
