import type { LoadedConfig } from "../config/load.js";

/**
 * Whether and where a session exports OpenTelemetry (docs/telemetry.md), worked out from the
 * standard OTEL_* variables of the session's environment and the config's `telemetry` key. Cheap and
 * free of any OpenTelemetry import: a run without telemetry decides here and loads nothing more.
 */
export type TelemetrySettings = {
  /** Full URLs of the OTLP/HTTP endpoints; a signal without one is not exported. */
  tracesUrl?: string;
  metricsUrl?: string;
  /** Per signal: `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`. */
  tracesProtocol: Protocol;
  metricsProtocol: Protocol;
  headers: Record<string, string>;
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, parsed. */
  resourceAttributes: Record<string, string>;
  /** How often metrics are exported while a process lives (they are also flushed at its end). */
  metricIntervalMs: number;
  /** Prompt text on the run's span (`OTEL_LOG_USER_PROMPTS=1`, as Claude Code). */
  logUserPrompts: boolean;
  /** Tool inputs and results on the tool spans (`OTEL_LOG_TOOL_DETAILS=1`, as Claude Code). */
  logToolDetails: boolean;
  /** The caller's W3C trace context (`TRACEPARENT`, `TRACESTATE`): the run's spans go under it. */
  traceparent?: string;
  tracestate?: string;
  /** What was set but cannot be applied, one line each, said once on stderr. */
  warnings: string[];
};

type TelemetryConfig = NonNullable<LoadedConfig["telemetry"]>;
type Protocol = "http/protobuf" | "http/json";

const DEFAULT_METRIC_INTERVAL_MS = 60_000;

/** The settings, or undefined when nothing asks for an export (or `OTEL_SDK_DISABLED=true`). */
export function telemetrySettings(
  env: NodeJS.ProcessEnv,
  config: TelemetryConfig | undefined,
): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  if (config?.enabled === false) return undefined;
  const warnings: string[] = [];
  const base = value(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? config?.endpoint;
  const signalUrl = (signal: "TRACES" | "METRICS", path: string): string | undefined => {
    if (value(env[`OTEL_${signal}_EXPORTER`]) === "none") return undefined;
    const own = value(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]);
    if (own) return own;
    return base ? `${base.replace(/\/+$/, "")}/${path}` : undefined;
  };
  const tracesUrl = signalUrl("TRACES", "v1/traces");
  const metricsUrl = signalUrl("METRICS", "v1/metrics");
  if (!tracesUrl && !metricsUrl) {
    if (config?.enabled === true)
      warnings.push(
        "telemetry.enabled is set but no endpoint is (telemetry.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)",
      );
    return warnings.length > 0 ? disabledWithWarnings(warnings) : undefined;
  }
  const general = value(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? config?.protocol ?? "http/protobuf";
  const protocolOf = (signal: "TRACES" | "METRICS"): Protocol => {
    const own = value(env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]);
    const name = own ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : "OTEL_EXPORTER_OTLP_PROTOCOL";
    const given = own ?? general;
    if (given === "http/json" || given === "http/protobuf") return given;
    warnings.push(
      given === "grpc"
        ? `${name}=grpc is not supported (cairn exports OTLP over HTTP only, to keep gRPC's libraries out of the package); exporting http/protobuf to the same endpoint`
        : `${name}=${given} is not an OTLP protocol; exporting http/protobuf`,
    );
    return "http/protobuf";
  };
  const tracesProtocol = protocolOf("TRACES");
  const metricsProtocol = protocolOf("METRICS");
  const interval = Number(value(env.OTEL_METRIC_EXPORT_INTERVAL) ?? DEFAULT_METRIC_INTERVAL_MS);
  const traceparent = value(env.TRACEPARENT);
  const tracestate = value(env.TRACESTATE);
  return {
    ...(tracesUrl ? { tracesUrl } : {}),
    ...(metricsUrl ? { metricsUrl } : {}),
    tracesProtocol,
    metricsProtocol,
    headers: { ...(config?.headers ?? {}), ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS) },
    serviceName: value(env.OTEL_SERVICE_NAME) ?? "cairn",
    resourceAttributes: pairs(env.OTEL_RESOURCE_ATTRIBUTES),
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : DEFAULT_METRIC_INTERVAL_MS,
    logUserPrompts: truthy(env.OTEL_LOG_USER_PROMPTS) ?? config?.logUserPrompts ?? false,
    logToolDetails: truthy(env.OTEL_LOG_TOOL_DETAILS) ?? config?.logToolDetails ?? false,
    ...(traceparent ? { traceparent } : {}),
    ...(tracestate ? { tracestate } : {}),
    warnings,
  };
}

/** Settings that export nothing but still have something to say. */
function disabledWithWarnings(warnings: string[]): TelemetrySettings {
  return {
    tracesProtocol: "http/protobuf",
    metricsProtocol: "http/protobuf",
    headers: {},
    serviceName: "cairn",
    resourceAttributes: {},
    metricIntervalMs: DEFAULT_METRIC_INTERVAL_MS,
    logUserPrompts: false,
    logToolDetails: false,
    warnings,
  };
}

/** The settings export something (an endpoint is set). */
export function exportsAnything(settings: TelemetrySettings): boolean {
  return settings.tracesUrl !== undefined || settings.metricsUrl !== undefined;
}

function value(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

function truthy(text: string | undefined): boolean | undefined {
  const given = value(text)?.toLowerCase();
  if (given === undefined) return undefined;
  return given === "1" || given === "true" || given === "yes";
}

/** `key=value,key2=value2` as the OTel environment writes headers and resource attributes (values URL-encoded). */
function pairs(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? "").split(",")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    const raw = part.slice(at + 1).trim();
    if (!key) continue;
    try {
      out[key] = decodeURIComponent(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}
