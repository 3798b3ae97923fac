import type { ToolOutcome } from "../tools/types.js";
import { nowMs } from "../util/clock.js";
import type { PermissionDenial, RunEndEvent, RunSubtype } from "./events.js";
import { AnswerInFlight } from "./interruption.js";
import { addCost, addUsage, emptyUsage, type StreamedMessage, type Usage } from "./messages.js";
import { ProviderError } from "./provider.js";
import type { ToolBatchOutcome, ToolCallOutcome } from "./turn-steps.js";

/** The model in use as the run accounts it: the id its usage is kept under, and its price. */
type PricedModel = { providerModel: string; priceUsage?: (usage: Partial<Usage>) => number | undefined };

/** After this many identical failing calls in a row the run ends instead of looping. */
const MAX_IDENTICAL_FAILURES = 3;

/**
 * What one run accumulates: its turns, usage and cost (per model too), time in model calls,
 * refused calls, errors and how it ends, the assistant's text, and the answer in flight. The loop
 * changes it only through these methods, from the steps' outcomes; `end()` is the run's `run_end`.
 */
export class RunState {
  readonly startedAt = Date.now();
  private readonly started = nowMs();
  turn = 0;
  /** Stop hooks sent the agent back to work this many times in a row. */
  stopContinuations = 0;
  /** The prompt joined the history (an interruption then leaves its note after it). */
  prompted = false;
  /** What the model call under way has streamed: an interrupted turn keeps it. */
  readonly inFlight = new AnswerInFlight();
  private usage = emptyUsage();
  private readonly modelUsage: Record<string, Usage> = {};
  private totalCost: number | undefined = 0;
  private readonly modelCost: Record<string, number | undefined> = {};
  private apiMs = 0;
  private requestId: string | undefined;
  private readonly denials: PermissionDenial[] = [];
  private readonly errors: string[] = [];
  private subtype: RunSubtype = "success";
  private apiError: RunEndEvent["apiError"];
  private readonly textSegments: string[] = [];
  private finalText = "";
  private lastFailure = { key: "", count: 0 };

  constructor(private readonly sessionId: string) {}

  /** Adds one call's usage to the totals; returns its cost (undefined: unknown). */
  account(callUsage: Usage, model: PricedModel): number | undefined {
    this.usage = addUsage(this.usage, callUsage);
    const callCost = model.priceUsage?.(callUsage);
    this.totalCost = addCost(this.totalCost, callCost);
    this.modelCost[model.providerModel] = addCost(this.modelCost[model.providerModel] ?? 0, callCost);
    this.modelUsage[model.providerModel] = addUsage(
      this.modelUsage[model.providerModel] ?? emptyUsage(),
      callUsage,
    );
    return callCost;
  }

  /** Time spent waiting on the model (calls and compactions). */
  addApiTime(ms: number): void {
    this.apiMs += ms;
  }

  /** A model call completed: its text joins the result (a tool call starts the final text anew). */
  answered(message: StreamedMessage, requestId: string | undefined): void {
    this.requestId = requestId ?? this.requestId;
    for (const block of message.content) {
      if (block?.type === "text") {
        this.textSegments.push(block.text);
        this.finalText += block.text;
      } else if (block?.type === "tool_use") {
        this.finalText = "";
      }
    }
  }

  /** The request id of the latest call that had one. */
  get lastRequestId(): string | undefined {
    return this.requestId;
  }

  /** A run that answers without the model (`/compact`): this text is its result. */
  say(text: string): void {
    this.finalText = text;
    this.textSegments.push(text);
  }

  /** A tool that ended the run gave its result: it replaces the text the model wrote on the way. */
  resultIs(text: string): void {
    this.textSegments.splice(0, this.textSegments.length, text);
    this.finalText = text;
  }

  /** A tool batch settled: refused calls, failures in a row, and the subagents' runs, in order. */
  settleTools(outcome: ToolBatchOutcome): void {
    for (const settled of outcome.settled) {
      if (settled.kind === "subagent") this.addSubagent(settled.end);
      else {
        if (settled.outcome.errorKind === "denied") {
          this.denials.push({
            tool_name: settled.block.name,
            tool_use_id: settled.block.id,
            tool_input: settled.block.input,
          });
        }
        this.lastFailure = nextFailure(this.lastFailure, settled);
      }
    }
  }

  /** A subagent's run ended: its usage, cost and refused calls count as the run's own. */
  private addSubagent(end: RunEndEvent): void {
    this.usage = addUsage(this.usage, end.usage);
    this.totalCost = addCost(this.totalCost, end.totalCostUsd ?? undefined);
    for (const [model, used] of Object.entries(end.modelUsage)) {
      this.modelUsage[model] = addUsage(this.modelUsage[model] ?? emptyUsage(), used);
      this.modelCost[model] = addCost(this.modelCost[model] ?? 0, end.modelCostUsd[model] ?? undefined);
    }
    this.apiMs += end.durationApiMs;
    this.denials.push(...end.permissionDenials);
  }

  /** The run must stop before another turn: past its turns or its budget (recorded as its end). */
  outOfTurnsOrBudget(maxTurns: number | undefined, maxBudgetUsd: number | undefined): boolean {
    if (maxTurns !== undefined && this.turn >= maxTurns) {
      this.fail("error_max_turns", `Reached the maximum number of turns (${maxTurns}).`);
      return true;
    }
    if (maxBudgetUsd !== undefined && this.totalCost !== undefined && this.totalCost > maxBudgetUsd) {
      this.fail(
        "error_max_budget_usd",
        `Reached the maximum budget of $${maxBudgetUsd} (the run cost $${this.totalCost.toFixed(4)}).`,
      );
      return true;
    }
    return false;
  }

  /** The same call failed the same way too often in a row (recorded as the run's end). */
  failingInARow(): boolean {
    if (this.lastFailure.count < MAX_IDENTICAL_FAILURES) return false;
    this.fail(
      "error_during_execution",
      `The same tool call failed ${this.lastFailure.count} times in a row; the run was stopped.`,
    );
    return true;
  }

  /** A hook's `continue: false` or a refused prompt ends the run. */
  stoppedBy(what: { reason: string; hook: string }, how: string): void {
    this.fail(
      "error_during_execution",
      `The hook ${what.hook} ${how}${what.reason ? `: ${what.reason}` : "."}`,
    );
  }

  fail(subtype: RunSubtype, error: string): void {
    this.subtype = subtype;
    this.errors.push(error);
  }

  /** The run threw (an abort, a model that failed after its retries, anything else). */
  threw(error: unknown, aborted: boolean): void {
    this.fail(
      "error_during_execution",
      aborted ? "The run was interrupted." : error instanceof Error ? error.message : String(error),
    );
    if (!aborted && error instanceof ProviderError) this.apiError = { status: error.status ?? null };
  }

  /** The run's `run_end`. */
  end(aborted: boolean): RunEndEvent {
    const durationMs = Math.max(1, Math.round(nowMs() - this.started));
    const { subtype, requestId, apiError, modelCost } = this;
    return {
      type: "run_end",
      sessionId: this.sessionId,
      subtype,
      isError: subtype !== "success",
      aborted,
      result: this.textSegments.join(""),
      finalText: this.finalText,
      durationMs,
      durationApiMs: Math.min(durationMs, Math.round(this.apiMs)),
      numTurns: this.turn,
      usage: this.usage,
      modelUsage: this.modelUsage,
      totalCostUsd: this.totalCost ?? null,
      modelCostUsd: Object.fromEntries(
        Object.entries(modelCost).map(([model, cost]) => [model, cost ?? null]),
      ),
      ...(requestId ? { requestId } : {}),
      errors: this.errors,
      ...(apiError ? { apiError } : {}),
      permissionDenials: this.denials,
    };
  }
}

/** Failures in a row of the same call (name, input and error alike); anything else starts over. */
function nextFailure(
  last: { key: string; count: number },
  { block, outcome }: Pick<ToolCallOutcome, "block"> & { outcome: ToolOutcome },
): { key: string; count: number } {
  if (!outcome.isError || outcome.errorKind === "denied" || outcome.errorKind === "aborted")
    return { key: "", count: 0 };
  const key = `${block.name}\u0000${JSON.stringify(block.input)}\u0000${outcome.content}`;
  return key === last.key ? { key, count: last.count + 1 } : { key, count: 1 };
}
