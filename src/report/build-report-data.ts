import type { Usage } from "../engine/messages.js";
import { serverSearchCall, serverSearchOutcome } from "../engine/server-search.js";
import { WEB_SEARCH_TOOL } from "../engine/server-tools.js";
import { costUSD } from "../providers/cost.js";
import type {
  AssistantRecord,
  HookRecord,
  RunEndRecord,
  ToolResultRecord,
  UserRecord,
} from "../sessions/records.js";
import { capText, redactedText } from "./cap-text.js";
import { fileDiffOf } from "./file-diff.js";
import type { SessionTranscripts, TranscriptLines } from "./read-transcript.js";
import type {
  ModelTotal,
  ReportData,
  RunView,
  SessionView,
  TokenCounts,
  ToolCall,
  TurnItem,
} from "./report-data.js";

export type BuildOptions = {
  /** Leave out file contents and command output. */
  redact: boolean;
  /** The most characters of one text embedded. */
  capChars: number;
  /** The most characters of all tool results together (the cap per result is lowered to fit). */
  outputBudgetChars: number;
};

/** The cap per result never goes below this, whatever the budget: a result stays readable. */
const MIN_RESULT_CAP = 1000;

/** Results of these tools are cairn's or a model's words, not file contents or command output. */
const KEPT_UNDER_REDACT = new Set(["Agent", "Task", "TodoWrite"]);
/** Why a call did not run: cairn's own message, kept under --redact. */
const OWN_MESSAGES = new Set(["denied", "invalid_input", "unknown_tool", "aborted"]);
/** Input fields that hold file contents. */
const CONTENT_FIELDS = ["content", "old_string", "new_string"];

/** The turn being read, and what its timing is computed from when it ends. */
type TurnClock = { item: TurnItem; endMs: number; intervals: [number, number][] };

/** Counts gathered over a session and its subagents. */
type Tally = {
  models: Map<string, ModelTotal>;
  turns: number;
  toolCalls: number;
  errors: number;
  denials: number;
  retries: number;
  compactions: number;
  subagents: number;
};

/** Reduces a session's transcripts to what the report shows. */
export function buildReportData(input: SessionTranscripts, options: BuildOptions): ReportData {
  const resultCap = resultCapFor(input, options);
  const tally: Tally = {
    models: new Map(),
    turns: 0,
    toolCalls: 0,
    errors: 0,
    denials: 0,
    retries: 0,
    compactions: 0,
    subagents: 0,
  };
  const main = buildSession(input.main, input, { ...options, resultCap }, tally);
  const { header } = input.main;
  const models = [...tally.models.values()].sort((a, b) => a.model.localeCompare(b.model));
  const tokens = models.reduce<TokenCounts>(
    (sum, model) => ({
      input: sum.input + model.input,
      output: sum.output + model.output,
      cacheRead: sum.cacheRead + model.cacheRead,
      cacheCreation: sum.cacheCreation + model.cacheCreation,
    }),
    { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
  );
  const ends = main.runs.flatMap((run) => (run.end ? [run.end] : []));
  const sum = (pick: (end: NonNullable<RunView["end"]>) => number) =>
    ends.reduce((total, end) => total + pick(end), 0);
  const costs = models.map((model) => model.costUsd);
  const lastRun = main.runs.at(-1);
  return {
    version: 1,
    session: {
      id: header.sessionId,
      cwd: header.cwd,
      createdAt: header.createdAt,
      ...(header.forkedFrom ? { forkedFrom: header.forkedFrom.sessionId } : {}),
    },
    generatedAt: new Date().toISOString(),
    redacted: options.redact,
    capChars: options.capChars,
    resultCapChars: resultCap,
    outputBudgetChars: options.outputBudgetChars,
    prompt: main.runs[0]?.prompt ?? "",
    answer: lastRun ? finalAnswer(lastRun) : "",
    totals: {
      durationMs: sum((end) => end.durationMs),
      modelMs: sum((end) => end.apiMs),
      toolMs: sum((end) => end.toolMs),
      cairnMs: sum((end) => end.cairnMs),
      turns: tally.turns,
      toolCalls: tally.toolCalls,
      errors: tally.errors,
      denials: tally.denials,
      retries: tally.retries,
      compactions: tally.compactions,
      subagents: tally.subagents,
      costUsd:
        costs.length === 0 || costs.some((cost) => cost === null)
          ? null
          : costs.reduce<number>((total, cost) => total + (cost ?? 0), 0),
      ...tokens,
    },
    models,
    main,
  };
}

/**
 * The cap per tool result: the cap per text, lowered evenly when the session's results, each cut to
 * it, would together pass the budget.
 */
function resultCapFor(input: SessionTranscripts, options: BuildOptions): number {
  const lengths: number[] = [];
  for (const lines of [input.main, ...input.subagents.values()])
    for (const record of lines.records)
      if (record.type === "tool_result") lengths.push(resultText(record.result.content).length);
  const total = lengths.reduce((sum, length) => sum + Math.min(length, options.capChars), 0);
  if (total <= options.outputBudgetChars || lengths.length === 0) return options.capChars;
  return Math.max(MIN_RESULT_CAP, Math.floor(options.outputBudgetChars / lengths.length));
}

function finalAnswer(run: RunView): string {
  for (let index = run.items.length - 1; index >= 0; index -= 1) {
    const item = run.items[index]!;
    if (item.kind === "turn" && item.text !== "") return item.text;
  }
  return "";
}

/** One transcript's runs: a run starts at each prompt and ends at its `run_end`. */
type SessionOptions = BuildOptions & { resultCap: number };

function buildSession(
  lines: TranscriptLines,
  all: SessionTranscripts,
  options: SessionOptions,
  tally: Tally,
): SessionView {
  const runs: RunView[] = [];
  const calls = new Map<string, ToolCall>();
  /** When the current turn's clock started: the run's start, or the end of the turn before. */
  let clock: number | undefined;
  let turn: TurnClock | undefined;
  let run: RunView | undefined;

  const currentRun = (ts: string): RunView => {
    if (!run) {
      run = { prompt: "", ts, items: [] };
      runs.push(run);
      clock = Date.parse(ts);
    }
    return run;
  };
  const closeTurn = () => {
    if (!turn) return;
    const { item, endMs, intervals } = turn;
    item.toolMs = unionLength(intervals);
    if (item.modelMs !== null && clock !== undefined)
      item.cairnMs = Math.max(0, endMs - clock - item.modelMs - item.toolMs);
    clock = endMs;
    turn = undefined;
  };

  for (const record of lines.records) {
    switch (record.type) {
      case "user": {
        const text = textOf(record);
        if (record.prompt === true) {
          closeTurn();
          run = {
            prompt: text,
            ts: record.ts,
            ...(record.model ? { model: record.model } : {}),
            ...(record.permissionMode ? { permissionMode: record.permissionMode } : {}),
            items: [],
          };
          runs.push(run);
          clock = Date.parse(record.ts);
        } else if (text !== "") {
          currentRun(record.ts).items.push({ kind: "note", ts: record.ts, text, level: "info" });
        }
        break;
      }
      case "assistant": {
        closeTurn();
        const target = currentRun(record.ts);
        const item = turnOf(record, target, tally, options);
        turn = { item, endMs: Date.parse(record.ts), intervals: [] };
        for (const call of item.calls) calls.set(call.id, call);
        target.items.push(item);
        break;
      }
      case "tool_result":
        applyResult(record, calls, turn, tally, options);
        break;
      case "hook":
        applyHook(record, calls, currentRun(record.ts));
        break;
      case "compact_boundary":
        closeTurn();
        tally.compactions += 1;
        currentRun(record.ts).items.push({
          kind: "compaction",
          ts: record.ts,
          trigger: record.trigger,
          preTokens: record.preTokens,
          postTokens: record.postTokens,
          summary: capText(record.summary, options.capChars),
          ...(record.durationMs !== undefined ? { durationMs: record.durationMs } : {}),
        });
        break;
      case "run_end":
        closeTurn();
        endRun(currentRun(record.ts), record, tally);
        run = undefined;
        break;
      default:
        break;
    }
  }
  closeTurn();
  for (const call of calls.values()) {
    if (call.name !== "Agent" && call.name !== "Task") continue;
    const sidechain = all.subagents.get(call.id);
    if (!sidechain) continue;
    tally.subagents += 1;
    const agentType = sidechain.header.sidechain?.agentType ?? "agent";
    const input = parseInput(call.input.text);
    call.agent = {
      type: agentType,
      description: typeof input?.description === "string" ? input.description : "",
      session: buildSession(sidechain, all, options, tally),
    };
  }
  return { runs, notes: lines.skipped };
}

function parseInput(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function turnOf(record: AssistantRecord, run: RunView, tally: Tally, options: BuildOptions): TurnItem {
  tally.turns += 1;
  const texts: string[] = [];
  const thinking: string[] = [];
  const calls: ToolCall[] = [];
  /** The provider's searches (docs/tools.md, "WebSearch"), by block id: shown as WebSearch calls. */
  const searches = new Map<string, ToolCall>();
  for (const block of record.message.content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "thinking") thinking.push(block.thinking);
    else if (block.type === "tool_use") calls.push(callOf(block.id, block.name, block.input, options));
    const search = serverSearchCall(block);
    if (search) {
      const call = {
        ...callOf(search.toolUseId, WEB_SEARCH_TOOL, search.input, options),
        decision: "allowed" as const,
      };
      searches.set(search.toolUseId, call);
      calls.push(call);
    }
    const found = block.type === "web_search_tool_result" ? searches.get(block.tool_use_id) : undefined;
    if (found) {
      const { outcome } = serverSearchOutcome(block, found.summary)!;
      found.result = capText(outcome.content, options.capChars);
      found.isError = outcome.isError;
    }
  }
  tally.toolCalls += calls.length;
  const retries = record.retries ?? [];
  tally.retries += retries.length;
  const model = record.model ?? run.model ?? "unknown model";
  const tokens = record.usage ? tokensOf(record.usage) : undefined;
  const costUsd =
    record.costUsd !== undefined
      ? record.costUsd
      : record.usage
        ? (costUSD(model, record.usage) ?? null)
        : null;
  if (tokens) addModel(tally, model, tokens, costUsd);
  const turnNumber = record.turn ?? run.items.filter((item) => item.kind === "turn").length + 1;
  return {
    kind: "turn",
    turn: turnNumber,
    ts: record.ts,
    model,
    text: texts.join("\n\n"),
    ...(thinking.length > 0 ? { thinking: capText(thinking.join("\n\n"), options.capChars).text } : {}),
    ...(record.stopReason !== undefined ? { stopReason: record.stopReason } : {}),
    modelMs: record.durationMs ?? null,
    toolMs: 0,
    cairnMs: null,
    ...(tokens ? { tokens } : {}),
    ...(record.usage ? { costUsd } : {}),
    retries,
    ...(record.fallback ? { fallback: record.fallback } : {}),
    calls,
  };
}

function callOf(id: string, name: string, input: Record<string, unknown>, options: BuildOptions): ToolCall {
  const shown = options.redact ? withoutContents(input) : input;
  const diff = fileDiffOf(name, input, options.capChars, options.redact);
  return {
    id,
    name,
    input: capText(JSON.stringify(shown, null, 2), options.capChars),
    summary: summaryOf(input),
    isError: false,
    decision: "not run",
    hooks: [],
    ...(diff ? { diff } : {}),
    ...(name === "Bash" && typeof input.command === "string" ? { bash: { command: input.command } } : {}),
  };
}

function withoutContents(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const field of CONTENT_FIELDS)
    if (typeof out[field] === "string")
      out[field] = `[${(out[field] as string).length} characters left out (--redact)]`;
  return out;
}

/** The one line a call's header shows. */
function summaryOf(input: Record<string, unknown>): string {
  const pick = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  const line =
    pick("command") ??
    pick("file_path") ??
    pick("description") ??
    pick("pattern") ??
    pick("url") ??
    pick("path") ??
    Object.values(input).find((value): value is string => typeof value === "string") ??
    "";
  const first = line.split("\n")[0] ?? "";
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}

function applyResult(
  record: ToolResultRecord,
  calls: Map<string, ToolCall>,
  turn: TurnClock | undefined,
  tally: Tally,
  options: SessionOptions,
): void {
  const call = calls.get(record.result.tool_use_id);
  if (!call) return;
  const text = resultText(record.result.content);
  const own = record.errorKind !== undefined && OWN_MESSAGES.has(record.errorKind);
  call.result =
    options.redact && !own && !KEPT_UNDER_REDACT.has(call.name)
      ? redactedText(text)
      : capText(text, options.resultCap);
  call.isError = record.result.is_error === true;
  if (call.isError) tally.errors += 1;
  if (record.errorKind) call.errorKind = record.errorKind;
  if (record.durationMs !== undefined) call.durationMs = record.durationMs;
  call.decision = record.errorKind === "denied" ? "denied" : own ? "not run" : "allowed";
  if (call.decision === "denied") tally.denials += 1;
  if (call.bash) {
    const exitCode = record.exitCode !== undefined ? record.exitCode : exitCodeFromText(text, call.isError);
    if (exitCode !== undefined) call.bash.exitCode = exitCode;
  }
  const end = Date.parse(record.ts);
  if (turn && Number.isFinite(end)) {
    turn.endMs = Math.max(turn.endMs, end);
    turn.intervals.push([end - (record.durationMs ?? 0), end]);
  }
}

/** Transcripts before exit codes were recorded: Bash's result ends with "Exit code N" when it failed. */
function exitCodeFromText(text: string, isError: boolean): number | undefined {
  const match = /(?:^|\n)Exit code (\d+)$/.exec(text);
  if (match) return Number(match[1]);
  return isError ? undefined : 0;
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: string; text?: string }) =>
      block.type === "text" ? (block.text ?? "") : `[${block.type ?? "block"}]`,
    )
    .join("\n");
}

function applyHook(record: HookRecord, calls: Map<string, ToolCall>, run: RunView): void {
  const hook = {
    event: record.event,
    hook: record.hook,
    outcome: record.outcome,
    ...(record.decision ? { decision: record.decision } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
  const call = record.toolUseId ? calls.get(record.toolUseId) : undefined;
  if (call) {
    call.hooks.push(hook);
    return;
  }
  const said = [record.decision, record.reason ?? record.error].filter(Boolean).join(": ");
  run.items.push({
    kind: "note",
    ts: record.ts,
    text: `${record.event} hook ${record.hook}: ${record.outcome}${said ? ` (${said})` : ""}`,
    level: record.outcome === "error" ? "error" : "info",
  });
}

function endRun(run: RunView, record: RunEndRecord, tally: Tally): void {
  const toolMs = run.items.reduce((total, item) => total + (item.kind === "turn" ? item.toolMs : 0), 0);
  const retries = record.retries ?? [];
  tally.retries += retries.length;
  tally.errors += record.errors.length;
  run.end = {
    subtype: record.subtype,
    isError: record.isError,
    aborted: record.aborted,
    durationMs: record.durationMs,
    apiMs: record.durationApiMs,
    toolMs,
    cairnMs: Math.max(0, record.durationMs - record.durationApiMs - toolMs),
    ...(record.totalCostUsd !== undefined ? { costUsd: record.totalCostUsd } : {}),
    errors: record.errors,
    permissionDenials: record.permissionDenials,
    retries,
  };
}

function tokensOf(usage: Usage): TokenCounts {
  return {
    input: usage.input_tokens ?? 0,
    output: usage.output_tokens ?? 0,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    cacheCreation: usage.cache_creation_input_tokens ?? 0,
  };
}

function addModel(tally: Tally, model: string, tokens: TokenCounts, costUsd: number | null): void {
  const total = tally.models.get(model) ?? {
    model,
    calls: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheCreation: 0,
    costUsd: 0,
  };
  total.calls += 1;
  total.input += tokens.input;
  total.output += tokens.output;
  total.cacheRead += tokens.cacheRead;
  total.cacheCreation += tokens.cacheCreation;
  total.costUsd = total.costUsd === null || costUsd === null ? null : total.costUsd + costUsd;
  tally.models.set(model, total);
}

/** Total length covered by intervals that may overlap (tools of one batch run in parallel). */
function unionLength(intervals: [number, number][]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of sorted) {
    const start = Math.max(from, end);
    if (to > start) total += to - start;
    end = Math.max(end, to);
  }
  return total;
}

function textOf(record: UserRecord): string {
  const content = record.message.content;
  if (typeof content === "string") return content;
  return content
    .map((block) =>
      block.type === "text" ? block.text : block.type === "tool_result" ? "" : `[${block.type}]`,
    )
    .filter((text) => text !== "")
    .join("\n");
}
