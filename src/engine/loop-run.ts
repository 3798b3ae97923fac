import type { Tool } from "../tools/types.js";
import { ContextMeter } from "./context-meter.js";
import type { LoopModel, LoopOptions } from "./loop.js";
import type { ConversationMessage } from "./messages.js";
import type { ToolSpec } from "./provider.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { RunState } from "./run-state.js";
import { directSteps, type ToolStepContext, type TurnSteps } from "./turn-steps.js";

const DEFAULT_MAX_TOKENS = 16_384;

/**
 * Each tool under its name and its aliases. Module-level functions and loops rather than closures
 * made per run: a run is assembled per turn, and TurboFan compiled such closures again after each
 * of the interactive mode's full collections (docs/performance.md, "TurboFan churn").
 */
function toolsByName(tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    byName.set(tool.name, tool);
    for (const alias of tool.aliases ?? []) byName.set(alias, tool);
  }
  return byName;
}

function toolSpec(tool: Tool): ToolSpec {
  return { name: tool.name, description: tool.description, input_schema: tool.jsonSchema };
}

/** One run of the loop: what it was given, what it derives once (tools by name, their specs, the context meter), its state and the model in use. */
export class LoopRun {
  readonly history: ConversationMessage[];
  readonly signal: AbortSignal;
  readonly steps: TurnSteps;
  readonly state: RunState;
  /** The run's tools by name and alias. */
  readonly tools: Map<string, Tool>;
  /** The tools as the model is offered them. */
  readonly toolSpecs: ToolSpec[];
  readonly maxTokens: number;
  readonly meter: ContextMeter;
  readonly retryPolicy: RetryPolicy;
  /** The model in use: the primary until the fallback takes over. */
  model: LoopModel;

  constructor(readonly options: LoopOptions) {
    this.history = options.history;
    this.signal = options.signal;
    this.steps = options.steps ?? directSteps;
    this.state = new RunState(options.sessionId);
    this.tools = toolsByName(options.tools);
    this.toolSpecs = options.tools.map(toolSpec);
    this.maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.meter = new ContextMeter(options.context ?? {}, this.maxTokens, options.system, this.toolSpecs);
    this.retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.model = options;
  }

  /** What a tool batch runs with: the tools, the process settings, and the model in use. */
  toolContext(): ToolStepContext {
    const { options, model } = this;
    return {
      tools: this.tools,
      cwd: options.cwd,
      signal: this.signal,
      env: options.env,
      sandbox: options.sandbox,
      ...(options.backgroundShells ? { backgroundShells: options.backgroundShells } : {}),
      model: model.model,
      ...(model.provider.mediaInput ? { mediaInput: model.provider.mediaInput } : {}),
      ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
      ...(options.unattended ? { unattended: true } : {}),
      ...(options.hooks ? { hooks: options.hooks } : {}),
    };
  }
}
