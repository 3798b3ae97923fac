import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { EngineEvent } from "../engine/events.js";
import type { ModelProvider } from "../engine/provider.js";
import { rejected } from "../engine/tool-runner.js";
import {
  directSteps,
  type ModelStepOutcome,
  type ToolBatchOutcome,
  type ToolBatchStep,
  type ToolStepContext,
  type TurnSteps,
} from "../engine/turn-steps.js";
import type { Tool } from "../tools/types.js";
import type { Checkpoint, StepWorkspace } from "./workspace-checkpoints.js";

/**
 * Runs a function as one checkpointed step of the workflow under way (DBOS's `runStep`): the first
 * time it runs and its result is recorded; when the workflow runs again after a crash, a recorded
 * step returns its result without running.
 */
export type RunStep = <T>(run: () => Promise<T>, options: { name: string }) => Promise<T>;

/** What the model is told of a call that was under way when its worker died, when it is not run again. */
export const UNKNOWN_OUTCOME =
  "The worker running this tool call stopped before the call finished, so it is not known whether the call took effect. It was not run again: check its effects before you repeat it.";

/**
 * A step's outcome and the events it showed, as the step records them; a tool step of a run on a
 * git workspace also records the checkpoint it made (workspace-checkpoints.ts).
 */
type Recorded<T> = { outcome: T; events: EngineEvent[][]; checkpoint?: Checkpoint };

/**
 * Files an edit batch may change, as they were before it ran (null: absent); a file inside the
 * workspace by its path relative to it, so a worker whose clone is elsewhere puts back its own.
 */
type Intent = { execution: string; files: Record<string, string | null> };

/**
 * The turn's steps as durable steps (src/engine/turn-steps.ts): each model call and each batch of
 * tool calls is one checkpointed step, so a workflow run again after its worker died resumes from
 * the last completed step. A step's events are shown once it has completed and its outcome is
 * recorded, and a re-run shows the recorded ones: everything after the steps (the transcript, the
 * persisted event stream) sees exactly the same events in every execution. Stream deltas are not
 * recorded: a worker's session shows complete messages, not their deltas.
 *
 * A batch of tool calls is preceded by an intent step that records which execution started it and
 * the files its edits touch. A batch that an earlier execution started and never completed (its
 * worker died) is run again only where that is safe: read-only calls run again, edits run again
 * after their files are put back as they were, and any other call (a shell command, a network or
 * MCP call) is not run again; its result tells the model the outcome is unknown.
 *
 * On a git workspace, each tool step ends with a checkpoint of the workspace (a commit pushed to
 * the run branch) recorded with its outcome, and the first step an execution runs itself starts by
 * putting the workspace at the last recorded checkpoint: the state before the step in flight.
 */
export class DurableSteps implements TurnSteps {
  /** A step of this workflow is running: a subagent's loop inside it runs its steps directly. */
  private depth = 0;

  constructor(
    private readonly runStep: RunStep,
    /** This execution of the workflow (a fresh id each time the workflow function starts). */
    private readonly execution: string,
    /** Called before each step starts: what was shown so far came from recorded steps. */
    private readonly beforeStep: () => Promise<void> = async () => {},
    /** The run's git workspace, checkpointed after each tool step (absent: no git workspace). */
    private readonly workspace?: StepWorkspace,
    /** The provider each model call (a subagent's too) goes through: the deployment's model limits. */
    private readonly limit: (provider: ModelProvider) => ModelProvider = (provider) => provider,
  ) {}

  async *callModel(
    step: Parameters<TurnSteps["callModel"]>[0],
    context: Parameters<TurnSteps["callModel"]>[1],
  ): AsyncGenerator<EngineEvent[], ModelStepOutcome> {
    const limited = { ...context, provider: this.limit(context.provider) };
    if (this.depth > 0) return yield* directSteps.callModel(step, limited);
    await this.beforeStep();
    const recorded = await this.runStep(
      () =>
        this.inside(async () => {
          await this.workspace?.sync();
          return collect(directSteps.callModel(step, limited));
        }),
      { name: "model" },
    );
    for (const batch of recorded.events) yield batch;
    return recorded.outcome;
  }

  async *runTools(
    step: ToolBatchStep,
    context: ToolStepContext,
  ): AsyncGenerator<EngineEvent[], ToolBatchOutcome> {
    if (this.depth > 0) return yield* directSteps.runTools(step, context);
    await this.beforeStep();
    const execution = this.execution;
    const intent = await this.runStep(
      async (): Promise<Intent> => {
        await this.workspace?.sync();
        return { execution, files: editedFiles(step, context) };
      },
      { name: "tools-intent" },
    );
    const recorded = await this.runStep(
      () =>
        this.inside(async () => {
          await this.workspace?.sync();
          const ran = await collect(
            directSteps.runTools(
              intent.execution === execution ? step : resumedBatch(step, context, intent),
              context,
            ),
          );
          return this.workspace ? { ...ran, checkpoint: await this.workspace.checkpoint() } : ran;
        }),
      { name: "tools" },
    );
    if (recorded.checkpoint) this.workspace?.recorded(recorded.checkpoint);
    for (const batch of recorded.events) yield batch;
    return recorded.outcome;
  }

  private async inside<T>(run: () => Promise<T>): Promise<T> {
    this.depth += 1;
    try {
      return await run();
    } finally {
      this.depth -= 1;
    }
  }
}

async function collect<T>(steps: AsyncGenerator<EngineEvent[], T>): Promise<Recorded<T>> {
  const events: EngineEvent[][] = [];
  while (true) {
    const next = await steps.next();
    if (next.done) return { outcome: next.value, events };
    const kept = next.value.filter((event) => event.type !== "stream");
    if (kept.length > 0) events.push(kept);
  }
}

function toolOf(context: ToolStepContext, name: string): Tool | undefined {
  return context.tools.get(name);
}

/** The files the batch's edits touch and their contents now (null: the file does not exist). */
function editedFiles(step: ToolBatchStep, context: ToolStepContext): Record<string, string | null> {
  const files: Record<string, string | null> = {};
  for (const call of step.calls) {
    const tool = toolOf(context, call.block.name);
    if (call.rejection || tool?.effects?.kind !== "edit" || !tool.effects.paths) continue;
    const paths = tool.effects.paths(call.block.input as Record<string, unknown>, context.cwd);
    if (!Array.isArray(paths)) continue;
    for (const { path } of paths) {
      // A tool's paths are as the model wrote them: relative ones are the workspace's.
      const file = resolve(context.cwd, path);
      const inside = relative(context.cwd, file);
      const key = inside.startsWith("..") || isAbsolute(inside) ? file : inside;
      try {
        files[key] = readFileSync(file, "utf8");
      } catch {
        files[key] = null;
      }
    }
  }
  return files;
}

/**
 * The batch as it runs again after its worker died mid-way: edited files are put back as they were
 * before it started, and calls that are neither read-only nor edits are not run again.
 */
function resumedBatch(step: ToolBatchStep, context: ToolStepContext, intent: Intent): ToolBatchStep {
  for (const [key, content] of Object.entries(intent.files)) {
    const path = resolve(context.cwd, key);
    if (content === null) rmSync(path, { force: true });
    else writeFileSync(path, content);
  }
  return {
    ...step,
    calls: step.calls.map((call) => {
      if (call.rejection) return call;
      const tool = toolOf(context, call.block.name);
      const safe = tool?.effects?.readOnly === true || (tool?.effects?.kind === "edit" && tool.effects.paths);
      return safe ? call : { ...call, rejection: rejected(UNKNOWN_OUTCOME, "failed") };
    }),
  };
}
