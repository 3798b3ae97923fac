import {
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type Meter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { EngineEvent, RunEndEvent, RunStartEvent, ToolEndEvent } from "../engine/events.js";
import type { Usage } from "../engine/messages.js";
import type { TelemetrySettings } from "./settings.js";

/**
 * What the telemetry observes: the session's events (the engine's, and the permission questions it
 * asked someone), as `Session.watch()` delivers them. Declared here, not imported from src/session/,
 * which sits above this folder.
 */
export type ObservedEvent =
  | EngineEvent
  | { type: "permission_request"; request: { toolUseId: string } }
  | { type: "session_notice" | "permission_mode_changed" };

/** The instruments every run records into (docs/telemetry.md, "Metrics"). */
export type Instruments = {
  tokens: Histogram;
  duration: Histogram;
  cost: Counter;
  tokensByType: Counter;
  toolDecisions: Counter;
  toolDuration: Histogram;
};

export function instrumentsOf(meter: Meter): Instruments {
  return {
    tokens: meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      description: "Tokens used per model call (gen_ai.token.type: input or output).",
    }),
    duration: meter.createHistogram("gen_ai.client.operation.duration", {
      unit: "s",
      description: "Duration of each model call, retries included.",
    }),
    cost: meter.createCounter("cairn.cost.usage", { unit: "USD", description: "Cost of the model calls." }),
    tokensByType: meter.createCounter("cairn.token.usage", {
      unit: "{token}",
      description: "Tokens by type: input, output, cacheRead, cacheCreation.",
    }),
    toolDecisions: meter.createCounter("cairn.tool.decisions", {
      description: "Permission decisions on tool calls, by tool, decision and source.",
    }),
    toolDuration: meter.createHistogram("cairn.tool.duration", {
      unit: "s",
      description: "Duration of each tool call that ran.",
    }),
  };
}

/** Shared by a run and the subagent runs nested in it. */
type Shared = {
  tracer: Tracer | undefined;
  instruments: Instruments | undefined;
  settings: TelemetrySettings;
  sessionId: string;
  /** Tool calls someone was asked about (a permission_request named them). */
  asked: Set<string>;
  /** Tool calls a PreToolUse hook decided. */
  hookDecided: Set<string>;
};

/**
 * One run's spans, built from its events as they come: `invoke_agent` for the run, a span per turn,
 * `chat {model}` per model call and `execute_tool {name}` per tool call under the turn; a subagent's
 * run is another RunSpans under its Agent call's span. Metrics are recorded as the calls end.
 */
export class RunSpans {
  private root: Span | undefined;
  private rootContext: Context = ROOT_CONTEXT;
  private turn: { number: number; span: Span; context: Context } | undefined;
  private chat: Span | undefined;
  private chatStartedAt = 0;
  private readonly tools = new Map<string, { span: Span; context: Context }>();
  private readonly subagents = new Map<string, RunSpans>();
  private model = "";
  private provider = "";

  constructor(
    private readonly shared: Shared,
    private readonly parent: Context,
    private readonly agentName = "cairn",
  ) {}

  static forSession(
    tracer: Tracer | undefined,
    instruments: Instruments | undefined,
    settings: TelemetrySettings,
    sessionId: string,
    parent: Context,
  ): RunSpans {
    const shared = {
      tracer,
      instruments,
      settings,
      sessionId,
      asked: new Set<string>(),
      hookDecided: new Set<string>(),
    };
    return new RunSpans(shared, parent);
  }

  /** The run is over (its run_end seen): a later run of the session starts afresh. */
  get ended(): boolean {
    return this.root === undefined;
  }

  observe(event: ObservedEvent): void {
    switch (event.type) {
      case "run_start":
        this.started(event);
        return;
      case "model_call_start":
        this.turnSpan(event.turn, event.startedAt);
        this.chatStartedAt = event.startedAt;
        this.chat = this.start(
          `chat ${this.model}`,
          this.turn?.context ?? this.rootContext,
          event.startedAt,
          {
            "gen_ai.operation.name": "chat",
            ...this.modelAttributes(),
          },
        );
        return;
      case "model_call_retry":
        this.chat?.addEvent("gen_ai.request.retry", {
          "cairn.retry.attempt": event.attempt,
          "cairn.retry.max_retries": event.maxRetries,
          "cairn.retry.delay_ms": event.delayMs,
          ...(event.errorStatus !== null ? { "http.response.status_code": event.errorStatus } : {}),
          "error.message": event.error,
        });
        return;
      case "model_fallback":
        this.chat?.addEvent("cairn.model.fallback", {
          from: event.from,
          to: event.to,
          "error.message": event.error,
        });
        this.setModel(event.to);
        return;
      case "model_call_end":
        this.chatEnded(event.message.model, event.message.usage, event.message.stop_reason, event);
        return;
      case "tool_start": {
        const context = this.turn?.context ?? this.rootContext;
        const span = this.start(`execute_tool ${event.name}`, context, event.startedAt, {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": event.name,
          "gen_ai.tool.call.id": event.toolUseId,
          ...(this.shared.settings.logToolDetails
            ? { "gen_ai.tool.call.arguments": JSON.stringify(event.input) }
            : {}),
        });
        if (span) this.tools.set(event.toolUseId, { span, context: trace.setSpan(context, span) });
        return;
      }
      case "hook_result":
        if (event.toolUseId && event.record.event === "PreToolUse" && event.record.decision)
          this.shared.hookDecided.add(event.toolUseId);
        return;
      case "permission_request":
        this.shared.asked.add(event.request.toolUseId);
        return;
      case "tool_end":
        this.toolEnded(event);
        return;
      case "subagent":
        this.subagent(event.toolUseId, event.agentType, event.agentId, event.event);
        return;
      case "turn_end":
        this.endTurn(event.stopReason ?? undefined);
        return;
      case "run_end":
        this.runEnded(event);
        return;
      default:
        return;
    }
  }

  private started(event: RunStartEvent): void {
    this.setModel(event.model);
    const { settings, sessionId } = this.shared;
    this.root = this.start(`invoke_agent ${this.agentName}`, this.parent, event.startedAt, {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": this.agentName,
      "gen_ai.conversation.id": sessionId,
      "session.id": sessionId,
      ...this.modelAttributes(),
      ...(settings.logUserPrompts ? { "cairn.prompt": event.prompt } : {}),
    });
    this.rootContext = this.root ? trace.setSpan(this.parent, this.root) : this.parent;
  }

  private turnSpan(turn: number, at: number): void {
    if (this.turn?.number === turn) return;
    this.endTurn();
    const span = this.start(`turn ${turn}`, this.rootContext, at, { "cairn.turn": turn });
    if (span) this.turn = { number: turn, span, context: trace.setSpan(this.rootContext, span) };
  }

  private endTurn(stopReason?: string): void {
    if (!this.turn) return;
    if (stopReason) this.turn.span.setAttribute("cairn.turn.stop_reason", stopReason);
    this.turn.span.end();
    this.turn = undefined;
  }

  private chatEnded(
    responseModel: string,
    usage: Usage,
    stopReason: string | null,
    event: { durationMs: number; costUsd: number | null; requestId?: string; message: { id: string } },
  ): void {
    const attributes = {
      ...this.modelAttributes(),
      "gen_ai.operation.name": "chat",
      "gen_ai.response.model": responseModel,
    };
    if (this.chat) {
      this.chat.setAttributes({
        "gen_ai.response.model": responseModel,
        "gen_ai.usage.input_tokens": usage.input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
        ...(usage.cache_read_input_tokens
          ? { "gen_ai.usage.cache_read.input_tokens": usage.cache_read_input_tokens }
          : {}),
        ...(usage.cache_creation_input_tokens
          ? { "gen_ai.usage.cache_creation.input_tokens": usage.cache_creation_input_tokens }
          : {}),
        "gen_ai.response.finish_reasons": stopReason ? [stopReason] : [],
        ...(event.message.id ? { "gen_ai.response.id": event.message.id } : {}),
        ...(event.requestId ? { "cairn.request_id": event.requestId } : {}),
        ...(event.costUsd !== null ? { "cairn.cost.usd": event.costUsd } : {}),
      });
      this.chat.end(this.chatStartedAt + event.durationMs);
      this.chat = undefined;
    }
    const instruments = this.shared.instruments;
    if (!instruments) return;
    instruments.tokens.record(usage.input_tokens, { ...attributes, "gen_ai.token.type": "input" });
    instruments.tokens.record(usage.output_tokens, { ...attributes, "gen_ai.token.type": "output" });
    const byType = (type: string, count: number | null | undefined) => {
      if (count) instruments.tokensByType.add(count, { "gen_ai.request.model": this.model, type });
    };
    byType("input", usage.input_tokens);
    byType("output", usage.output_tokens);
    byType("cacheRead", usage.cache_read_input_tokens);
    byType("cacheCreation", usage.cache_creation_input_tokens);
    instruments.duration.record(event.durationMs / 1000, attributes);
    if (event.costUsd !== null) instruments.cost.add(event.costUsd, { "gen_ai.request.model": this.model });
  }

  private toolEnded(event: ToolEndEvent): void {
    const { outcome } = event;
    const decision = decisionOf(outcome.errorKind);
    const source = this.shared.hookDecided.has(event.toolUseId)
      ? "hook"
      : this.shared.asked.has(event.toolUseId)
        ? "user"
        : "config";
    const open = this.tools.get(event.toolUseId);
    this.tools.delete(event.toolUseId);
    this.subagents.get(event.toolUseId)?.abandon();
    this.subagents.delete(event.toolUseId);
    if (open) {
      const span = open.span;
      if (decision)
        span.setAttributes({ "cairn.tool.decision": decision, "cairn.tool.decision.source": source });
      if (this.shared.settings.logToolDetails)
        span.setAttribute("gen_ai.tool.call.result", truncate(outcome.content));
      if (outcome.isError) {
        span.setAttribute("error.type", outcome.errorKind ?? "tool_error");
        span.setStatus({ code: SpanStatusCode.ERROR, message: truncate(outcome.content, 512) });
      }
      span.end(event.endedAt);
    }
    const instruments = this.shared.instruments;
    if (!instruments) return;
    if (decision) instruments.toolDecisions.add(1, { "gen_ai.tool.name": event.name, decision, source });
    if (decision === "accept")
      instruments.toolDuration.record(outcome.durationMs / 1000, {
        "gen_ai.tool.name": event.name,
        success: !outcome.isError,
      });
  }

  private subagent(toolUseId: string, agentType: string, agentId: string, event: EngineEvent): void {
    let nested = this.subagents.get(toolUseId);
    if (!nested || (nested.ended && event.type === "run_start")) {
      const parent = this.tools.get(toolUseId)?.context ?? this.rootContext;
      nested = new RunSpans(this.shared, parent, agentType);
      this.subagents.set(toolUseId, nested);
    }
    nested.observe(event);
    if (event.type === "run_start") nested.root?.setAttribute("gen_ai.agent.id", agentId);
  }

  private runEnded(event: RunEndEvent): void {
    if (this.chat) {
      // The call failed after its retries: no model_call_end came.
      this.chat.setStatus({
        code: SpanStatusCode.ERROR,
        message: event.errors.at(-1) ?? "the model call failed",
      });
      if (event.apiError)
        this.chat.setAttribute("error.type", String(event.apiError.status ?? "no_response"));
      this.chat.end();
      this.chat = undefined;
      this.shared.instruments?.duration.record((Date.now() - this.chatStartedAt) / 1000, {
        ...this.modelAttributes(),
        "gen_ai.operation.name": "chat",
        "error.type": String(event.apiError?.status ?? "error"),
      });
    }
    for (const { span } of this.tools.values()) span.end();
    this.tools.clear();
    this.endTurn();
    const root = this.root;
    if (!root) return;
    root.setAttributes({
      "gen_ai.usage.input_tokens": event.usage.input_tokens,
      "gen_ai.usage.output_tokens": event.usage.output_tokens,
      "cairn.run.subtype": event.subtype,
      "cairn.run.turns": event.numTurns,
      ...(event.totalCostUsd !== null ? { "cairn.cost.usd": event.totalCostUsd } : {}),
      ...(event.permissionDenials.length > 0
        ? { "cairn.run.permission_denials": event.permissionDenials.length }
        : {}),
    });
    if (event.isError)
      root.setStatus({ code: SpanStatusCode.ERROR, message: event.errors.at(-1) ?? event.subtype });
    root.end();
    this.root = undefined;
  }

  /** A subagent whose Agent call ended without its run_end: its spans end here. */
  private abandon(): void {
    if (this.chat) this.chat.end();
    for (const { span } of this.tools.values()) span.end();
    this.endTurn();
    this.root?.end();
    this.root = undefined;
  }

  private start(name: string, parent: Context, at: number, attributes: Attributes): Span | undefined {
    return this.shared.tracer?.startSpan(
      name,
      { kind: SpanKind.INTERNAL, startTime: at, attributes },
      parent,
    );
  }

  private setModel(given: string): void {
    const match = /^([a-z0-9-]+)[/:](.+)$/i.exec(given);
    this.provider = match ? match[1]! : "unknown";
    this.model = match ? match[2]! : given;
  }

  private modelAttributes(): Attributes {
    return {
      "gen_ai.provider.name": this.provider,
      "gen_ai.system": this.provider,
      "gen_ai.request.model": this.model,
    };
  }
}

/** Claude Code's words for a decision; undefined when the call never reached the permission check. */
function decisionOf(errorKind: ToolEndEvent["outcome"]["errorKind"]): "accept" | "reject" | undefined {
  if (errorKind === "denied") return "reject";
  if (errorKind === "invalid_input" || errorKind === "unknown_tool" || errorKind === "aborted")
    return undefined;
  return "accept";
}

const MAX_CONTENT = 4096;

function truncate(content: unknown, max = MAX_CONTENT): string {
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}
