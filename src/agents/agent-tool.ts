import * as z from "zod";
import type { RunEndEvent } from "../engine/events.js";
import type { HookDispatcher, HookEventFields } from "../engine/hooks.js";
import { type LoopModel, type LoopOptions, runAgentLoop } from "../engine/loop.js";
import type { CanUseTool } from "../engine/tool-runner.js";
import { BUILTIN_JSON_SCHEMAS } from "../tools/builtin-json-schemas.js";
import { defineTool } from "../tools/define.js";
import type { Tool, ToolContext, ToolOutput } from "../tools/types.js";
import { randomHex } from "../util/random-id.js";
import { GENERAL_PURPOSE_AGENT, type ResolvedAgent } from "./definitions.js";
import { Slots } from "./slots.js";
import { AGENT_TOOL, AGENT_TOOL_ALIASES, subagentTools } from "./subagent-tools.js";

/** At most this many subagents run at once; further Agent calls of the turn wait for a slot. */
export const MAX_CONCURRENT_SUBAGENTS = 4;

/** What the Agent tool needs from the run it belongs to (src/run/ assembles it). */
export type AgentToolDeps = {
  agents: ReadonlyMap<string, ResolvedAgent>;
  /** The parent's engine options for the turn running now: model, gate, hooks, sandbox, signal. */
  parent(): LoopOptions | undefined;
  /** The tools subagents choose from: the parent's, without per-turn extras. */
  baseTools(): readonly Tool[];
  /** A model by name (alias or id), with the run's provider settings. */
  resolveModel(name: string): Promise<LoopModel>;
  /** The system prompt of a subagent with these tools. */
  systemPrompt(agent: ResolvedAgent, tools: readonly string[]): Promise<string>;
  /** Where the subagent's transcript goes (`""`: not persisted). */
  transcriptPath(agentId: string): string;
};

const input = () =>
  z.object({
    description: z.string().describe("A short (3-5 word) description of the task."),
    prompt: z.string().min(1).describe("The task for the agent to perform: everything it needs to know."),
    subagent_type: z
      .string()
      .optional()
      .describe(`The type of agent to use (default: ${GENERAL_PURPOSE_AGENT}).`),
    model: z
      .string()
      .optional()
      .describe("A model for this agent (sonnet, opus, haiku, or an id); default: the agent's own."),
  });

/**
 * The Agent tool (legacy name `Task`): runs a subagent — a nested engine loop with its own
 * conversation, system prompt, tools and model — and returns its final answer. The subagent's tool
 * calls go through the parent's permission gate and hooks, with the parent's mode, sandbox and abort
 * signal, so it can do nothing the parent could not. Its events are reported into the parent's
 * stream as they happen (`ToolContext.report`).
 *
 * The call itself changes nothing (`readOnly`): it needs no approval of its own, and several Agent
 * calls of one turn run at once (at most MAX_CONCURRENT_SUBAGENTS).
 */
export function agentTool(deps: AgentToolDeps): Tool {
  const slots = new Slots(MAX_CONCURRENT_SUBAGENTS);
  const models = new Map<string, Promise<LoopModel>>();
  const list = [...deps.agents.values()].map((agent) => `- ${agent.name}: ${agent.description}`).join("\n");
  const tool = defineTool({
    name: AGENT_TOOL,
    description:
      "Launches a subagent to handle a task on its own: it has its own context and tools, works until done, " +
      "and returns one final report (only that comes back to you). Give it a complete, self-contained prompt. " +
      "Several Agent calls in one message run concurrently.\n\nAvailable agents (subagent_type):\n" +
      list,
    effects: { kind: "other", readOnly: true, network: false },
    payload: "task",
    // The answer is the subagent's report; it is cut like any tool output.
    input,
    jsonSchema: BUILTIN_JSON_SCHEMAS[AGENT_TOOL],
    async run(args, ctx) {
      const type = args.subagent_type ?? GENERAL_PURPOSE_AGENT;
      const agent = deps.agents.get(type);
      if (!agent) {
        return failure(
          `Agent type '${type}' not found. Available agents: ${[...deps.agents.keys()].join(", ")}.`,
        );
      }
      const parent = deps.parent();
      if (!parent) return failure("The Agent tool runs only inside a turn.");
      const modelName = args.model ?? agent.model;
      let model: LoopModel = parent;
      if (modelName !== undefined && modelName !== "inherit") {
        if (!models.has(modelName)) models.set(modelName, deps.resolveModel(modelName));
        try {
          model = await (models.get(modelName) as Promise<LoopModel>);
        } catch (error) {
          models.delete(modelName);
          return failure(
            `The model ${modelName} of agent ${type} cannot be used: ${(error as Error).message}`,
          );
        }
      }
      const release = await slots.acquire(ctx.signal);
      try {
        return await runSubagent(deps, agent, args, model, parent, ctx);
      } finally {
        release();
      }
    },
  });
  return Object.assign(tool, { aliases: AGENT_TOOL_ALIASES });
}

async function runSubagent(
  deps: AgentToolDeps,
  agent: ResolvedAgent,
  args: z.infer<ReturnType<typeof input>>,
  model: LoopModel,
  parent: LoopOptions,
  ctx: ToolContext,
): Promise<ToolOutput> {
  const agentId = randomHex(8);
  const transcriptPath = deps.transcriptPath(agentId);
  const { tools } = subagentTools(agent, deps.baseTools());
  const system = await deps.systemPrompt(
    agent,
    tools.map((tool) => tool.name),
  );
  // The parent's gate, hooks, mode, sandbox, environment and limits of context; not what is the
  // parent's own (its session start, MCP and agent report, turn and budget limits).
  const { sessionStart, mcpServers, agents, maxBudgetUsd, maxTurns, fallback, ...inherited } = parent;
  const options: LoopOptions = {
    ...inherited,
    provider: model.provider,
    model: model.model,
    providerModel: model.providerModel,
    ...(model.priceUsage ? { priceUsage: model.priceUsage } : {}),
    ...(fallback && model === parent ? { fallback } : {}),
    system,
    tools,
    history: [],
    prompt: args.prompt,
    signal: ctx.signal,
    ...(agent.maxTurns !== undefined ? { maxTurns: agent.maxTurns } : {}),
    ...(parent.hooks ? { hooks: agentHooks(parent.hooks, agentId, agent.name) } : {}),
    ...(parent.canUseTool ? { canUseTool: agentPermissions(parent.canUseTool, agentId) } : {}),
    subagent: { agentId, agentType: agent.name, transcriptPath },
  };
  let end: RunEndEvent | undefined;
  let toolUses = 0;
  for await (const event of runAgentLoop(options)) {
    if (event.type === "run_end") end = event;
    if (event.type === "tool_end") toolUses += 1;
    await ctx.report?.({
      agentId,
      agentType: agent.name,
      description: args.description,
      transcriptPath,
      event,
    });
  }
  if (!end || end.aborted) return { content: "The subagent was interrupted.", isError: true };
  const text = end.finalText || end.result;
  if (end.isError) {
    return failure(
      `The subagent ${agent.name} did not finish: ${end.errors.join(" ")}${text ? `\nIts last words: ${text}` : ""}\nagentId: ${agentId}`,
    );
  }
  const { usage } = end;
  return {
    // The agentId line is the convention's: programs find the subagent's transcript by it.
    content: `${text}\n\nagentId: ${agentId}`,
    data: {
      status: "completed",
      agentId,
      agentType: agent.name,
      content: [{ type: "text", text }],
      totalToolUseCount: toolUses,
      totalDurationMs: end.durationMs,
      totalTokens:
        usage.input_tokens +
        usage.output_tokens +
        (usage.cache_read_input_tokens ?? 0) +
        (usage.cache_creation_input_tokens ?? 0),
      usage: { ...usage },
      prompt: args.prompt,
    },
  };
}

/** The parent's hooks, every input of the subagent's carrying `agent_id` and `agent_type` (the convention's). */
function agentHooks(hooks: HookDispatcher, agentId: string, agentType: string): HookDispatcher {
  return {
    has: (event) => hooks.has(event),
    run: (fields, options) =>
      hooks.run({ ...fields, agent_id: agentId, agent_type: agentType } as HookEventFields, options),
  };
}

/** The parent's permission check, told which subagent asks (the SDK's `canUseTool` gets `agentID`). */
function agentPermissions(canUseTool: CanUseTool, agentId: string): CanUseTool {
  return (toolName, input, options) => canUseTool(toolName, input, { ...options, agentID: agentId });
}

function failure(content: string): ToolOutput {
  return { content, isError: true };
}
