import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { type ModelSettings, resolveModel } from "../providers/registry.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import { builtinTools } from "../tools/index.js";
import type { Tool } from "../tools/types.js";
import { eachEvent } from "./batches.js";
import { buildSystemPrompt } from "./context.js";
import type { EngineEvent, RunEndEvent } from "./events.js";
import { type LoopOptions, runAgentLoopBatches } from "./loop.js";
import type { ConversationMessage } from "./messages.js";
import { type RetryPolicy, retryPolicyFromEnv } from "./retry.js";
import type { CanUseTool } from "./tool-runner.js";

export type AgentRunOptions = ModelSettings & {
  prompt: string;
  /** Working directory of the session (default: process.cwd()). */
  cwd?: string;
  sessionId?: string;
  signal: AbortSignal;
  maxTurns?: number;
  maxTokens?: number;
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
  /** Environment for tool child processes. */
  toolEnv?: NodeJS.ProcessEnv;
  /** The OS sandbox for shell commands (see src/sandbox/). */
  sandbox?: SandboxPolicy;
  /** Model-call retries; default from CAIRN_MAX_RETRIES / CAIRN_RETRY_BASE_MS / CAIRN_STREAM_IDLE_TIMEOUT_MS. */
  retryPolicy?: RetryPolicy;
};

/** Everything a run needs, resolved before the first event (so configuration errors throw early). */
export type PreparedRun = { sessionId: string; loop: LoopOptions };

export async function prepareRun(options: AgentRunOptions): Promise<PreparedRun> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const disallowed = new Set(options.disallowedTools ?? []);
  const tools = (options.tools ?? builtinTools()).filter((tool) => !disallowed.has(tool.name));
  const [resolved, system] = await Promise.all([
    // Prompt caching is on unless the caller turns it off: the system prompt and conversation prefix
    // are re-sent every turn, and cache reads cost a tenth of fresh input on Anthropic.
    resolveModel({ ...options, promptCaching: options.promptCaching ?? true }),
    buildSystemPrompt({
      cwd,
      tools: tools.map((tool) => tool.name),
      ...(options.systemPrompt !== undefined ? { override: options.systemPrompt } : {}),
      ...(options.appendSystemPrompt !== undefined ? { append: options.appendSystemPrompt } : {}),
    }),
  ]);
  const sessionId = options.sessionId ?? randomUUID();
  return {
    sessionId,
    loop: {
      sessionId,
      cwd,
      provider: resolved.provider,
      model: resolved.model,
      providerModel: resolved.providerModel,
      system,
      tools,
      history: options.history ?? [],
      prompt: options.prompt,
      signal: options.signal,
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.permissionMode !== undefined ? { permissionMode: options.permissionMode } : {}),
      ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
      ...(options.toolEnv ? { env: options.toolEnv } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      retryPolicy: options.retryPolicy ?? retryPolicyFromEnv(options.env ?? process.env),
    },
  };
}

/** Prepares and runs one prompt: the engine event stream, ending with `run_end`. */
export function runAgent(options: AgentRunOptions): AsyncGenerator<EngineEvent, RunEndEvent> {
  return eachEvent(runAgentBatches(options));
}

/** `runAgent` in batches (see `runAgentLoopBatches`): what the CLI reads. */
export async function* runAgentBatches(options: AgentRunOptions): AsyncGenerator<EngineEvent[], RunEndEvent> {
  const prepared = await prepareRun(options);
  return yield* runAgentLoopBatches(prepared.loop);
}
