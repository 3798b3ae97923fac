import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { TelemetrySettings } from "./settings.js";

/** How long one export may take, and the whole flush at a run's end: never hang on a dead collector. */
const EXPORT_TIMEOUT_MS = 5_000;

/**
 * The process's tracer and meter providers for one set of settings (a process whose sessions all
 * have the same environment, the usual case, has one pair). They are made when the first session
 * that exports starts and live as long as the process; each session flushes them when it ends.
 * Exports go straight to the endpoint over node:http(s), not through cairn's proxy settings
 * (docs/telemetry.md).
 */
export type Providers = {
  tracer?: import("@opentelemetry/api").Tracer;
  meter?: import("@opentelemetry/api").Meter;
  /** Exports what is pending, within EXPORT_TIMEOUT_MS; resolves with the first failure, if any. */
  flush(): Promise<string | undefined>;
};

const made = new Map<string, Promise<Providers>>();
/** Export failures since the last flush (what the exporters answered). */
let failures: string[] = [];

export function providersFor(settings: TelemetrySettings): Promise<Providers> {
  const key = JSON.stringify([
    settings.tracesUrl,
    settings.metricsUrl,
    settings.tracesProtocol,
    settings.metricsProtocol,
    settings.headers,
    settings.serviceName,
    settings.resourceAttributes,
    settings.metricIntervalMs,
  ]);
  const existing = made.get(key);
  if (existing) return existing;
  const providers = makeProviders(settings);
  made.set(key, providers);
  return providers;
}

/** Only the signals and the protocol in use are loaded (each exporter package costs start-up time). */
async function makeProviders(settings: TelemetrySettings): Promise<Providers> {
  const resource = resourceFromAttributes({
    "service.name": settings.serviceName,
    ...settings.resourceAttributes,
  });
  const common = { headers: settings.headers, timeoutMillis: EXPORT_TIMEOUT_MS, keepAlive: false };
  let tracerProvider: TracerProvider | undefined;
  if (settings.tracesUrl) {
    const { OTLPTraceExporter } =
      settings.tracesProtocol === "http/json"
        ? await import("@opentelemetry/exporter-trace-otlp-http")
        : await import("@opentelemetry/exporter-trace-otlp-proto");
    const exporter = watched(new OTLPTraceExporter({ ...common, url: settings.tracesUrl }));
    tracerProvider = new TracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor({ exporter, exportTimeoutMillis: EXPORT_TIMEOUT_MS })],
    });
  }
  let meterProvider: MeterProvider | undefined;
  if (settings.metricsUrl) {
    const { OTLPMetricExporter } =
      settings.metricsProtocol === "http/json"
        ? await import("@opentelemetry/exporter-metrics-otlp-http")
        : await import("@opentelemetry/exporter-metrics-otlp-proto");
    const exporter = watched(new OTLPMetricExporter({ ...common, url: settings.metricsUrl }));
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: settings.metricIntervalMs,
          exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, settings.metricIntervalMs),
        }),
      ],
    });
  }
  return {
    ...(tracerProvider ? { tracer: tracerProvider.getTracer("cairn") } : {}),
    ...(meterProvider ? { meter: meterProvider.getMeter("cairn") } : {}),
    async flush() {
      const flushed = Promise.all([
        tracerProvider?.forceFlush().catch((error: unknown) => void failures.push(messageOf(error))),
        meterProvider?.forceFlush().catch((error: unknown) => void failures.push(messageOf(error))),
      ]);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(
          () => resolve(`no answer within ${EXPORT_TIMEOUT_MS / 1000} s`),
          EXPORT_TIMEOUT_MS + 500,
        );
        timer.unref();
      });
      const timedOut = await Promise.race([flushed.then(() => undefined), late]);
      clearTimeout(timer);
      const first = timedOut ?? failures[0];
      failures = [];
      return first;
    },
  };
}

/**
 * The exporter, its failures kept for the one line a run prints at its end. Not the SDK's global
 * error handler: that is the embedding program's, when it uses OpenTelemetry itself.
 */
function watched<T extends { export(items: never, done: (result: ExportResult) => void): void }>(
  exporter: T,
): T {
  const original = exporter.export.bind(exporter);
  exporter.export = (items: never, done: (result: ExportResult) => void) =>
    original(items, (result) => {
      if (result.code !== ExportResultCode.SUCCESS)
        failures.push(result.error?.message ?? "the collector refused it");
      done(result);
    });
  return exporter;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
