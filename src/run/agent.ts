import { eachEvent } from "../engine/batches.js";
import type { EngineEvent, RunEndEvent } from "../engine/events.js";
import { type LoopOptions, runAgentLoopBatches } from "../engine/loop.js";
import type { ConversationMessage } from "../engine/messages.js";
import type { RetryPolicy } from "../engine/retry.js";
import type { CanUseTool } from "../engine/tool-runner.js";
import type { ModelSettings } from "../providers/registry.js";
import { builtinTools } from "../tools/index.js";
import type { Tool } from "../tools/types.js";
import { randomUuid } from "../util/random-id.js";
import { assembleRun } from "./assemble.js";

/** The engine's own API (`runAgent`): one prompt, the raw event stream. The front doors use `assembleRun`. */
export type AgentRunOptions = ModelSettings & {
  prompt: string;
  /** Working directory of the session (default: process.cwd()). */
  cwd?: string;
  sessionId?: string;
  signal: AbortSignal;
  maxTurns?: number;
  maxTokens?: number;
  /** Reported in `run_start`; the gate is `canUseTool` (none: every call runs). */
  permissionMode?: string;
  canUseTool?: CanUseTool;
  /** Tool names removed from the set offered to the model. */
  disallowedTools?: string[];
  /** Replaces the built-in tools (custom tool sets, tests). */
  tools?: Tool[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** Earlier conversation to continue (resume); appended to in place. */
  history?: ConversationMessage[];
  /** Environment for tool child processes (default: the caller's environment without secrets). */
  toolEnv?: NodeJS.ProcessEnv;
  /** Model-call retries; default from CAIRN_MAX_RETRIES / CAIRN_RETRY_BASE_MS / CAIRN_STREAM_IDLE_TIMEOUT_MS. */
  retryPolicy?: RetryPolicy;
};

/** Everything a run needs, resolved before the first event (so configuration errors throw early). */
export type PreparedRun = { sessionId: string; loop: LoopOptions };

export async function prepareRun(options: AgentRunOptions): Promise<PreparedRun> {
  const disallowed = new Set(options.disallowedTools ?? []);
  const run = await assembleRun({
    ...options,
    cwd: options.cwd ?? process.cwd(),
    ...(options.tools || options.disallowedTools
      ? { tools: (options.tools ?? builtinTools()).filter((tool) => !disallowed.has(tool.name)) }
      : {}),
  });
  const sessionId = options.sessionId ?? randomUuid();
  const loop = await run.loopOptions({
    prompt: options.prompt,
    signal: options.signal,
    sessionId,
    history: options.history ?? [],
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
    ...(options.permissionMode !== undefined ? { permissionMode: options.permissionMode } : {}),
  });
  return { sessionId, loop: options.toolEnv ? { ...loop, env: options.toolEnv } : loop };
}

/** Prepares and runs one prompt: the engine event stream, ending with `run_end`. */
export function runAgent(options: AgentRunOptions): AsyncGenerator<EngineEvent, RunEndEvent> {
  return eachEvent(runAgentBatches(options));
}

/** `runAgent` in batches (see `runAgentLoopBatches`). */
export async function* runAgentBatches(options: AgentRunOptions): AsyncGenerator<EngineEvent[], RunEndEvent> {
  const prepared = await prepareRun(options);
  return yield* runAgentLoopBatches(prepared.loop);
}
