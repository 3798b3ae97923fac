import { type Context, context, defaultTextMapGetter, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { providersFor } from "./providers.js";
import { instrumentsOf, type ObservedEvent, RunSpans } from "./run-spans.js";
import type { TelemetrySettings } from "./settings.js";

/** What a session holds while it exports: it hands every event in, and flushes when it closes. */
export type SessionTelemetry = {
  observe(event: ObservedEvent): void;
  /** Exports what is pending (bounded); the first failure's message, if the export failed. */
  flush(): Promise<string | undefined>;
};

/**
 * The OpenTelemetry side of one session (docs/telemetry.md): this module and the OpenTelemetry
 * packages load only when a session exports (src/session/telemetry.ts decides), apart from the CLI's
 * bundle, so a run without telemetry pays nothing for them.
 */
export async function startSessionTelemetry(
  settings: TelemetrySettings,
  warn: (line: string) => void,
): Promise<SessionTelemetry> {
  const providers = await providersFor(settings);
  const instruments = providers.meter ? instrumentsOf(providers.meter) : undefined;
  const parent = callerContext(settings, warn);
  let run: RunSpans | undefined;
  let failed = false;
  return {
    observe(event) {
      try {
        if (event.type === "run_start" && (!run || run.ended))
          run = RunSpans.forSession(providers.tracer, instruments, settings, event.sessionId, parent);
        run?.observe(event);
      } catch (error) {
        // Telemetry never breaks a run: the first failure is said, the rest of the run is not traced.
        if (!failed) warn(`telemetry stopped: ${(error as Error).message}`);
        failed = true;
        run = undefined;
      }
    },
    flush: () => providers.flush(),
  };
}

/**
 * The caller's trace context: `TRACEPARENT` / `TRACESTATE` of the session's environment (what the
 * official agent SDK sets for the CLI it spawns, and what `cairn serve` carries from a request's
 * `traceparent`), else the context active where the session was made (a program that calls the SDK
 * inside its own span, with a context manager registered), else none: the run starts a trace.
 */
function callerContext(settings: TelemetrySettings, warn: (line: string) => void): Context {
  if (settings.traceparent) {
    const carrier = {
      traceparent: settings.traceparent,
      ...(settings.tracestate ? { tracestate: settings.tracestate } : {}),
    };
    const extracted = new W3CTraceContextPropagator().extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
    if (trace.getSpanContext(extracted)) return extracted;
    warn(`TRACEPARENT=${settings.traceparent} is not a W3C traceparent; the run starts its own trace`);
  }
  const active = context.active();
  return trace.getSpanContext(active) ? active : ROOT_CONTEXT;
}
