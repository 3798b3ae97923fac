import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/**
 * An OTLP/HTTP receiver on 127.0.0.1, as a collector is: it takes `POST /v1/traces` and
 * `/v1/metrics` and decodes them, http/json with JSON.parse, http/protobuf with the small wire
 * decoder below (written from opentelemetry-proto's field numbers; a second decode path, independent
 * of the serializer the exporter uses).
 */
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message: string };
};

export type ReceivedPoint = { attributes: Record<string, unknown>; value: number };

export type Receiver = {
  url: string;
  contentTypes: string[];
  spans: ReceivedSpan[];
  resources: Record<string, unknown>[];
  /** Metric name → its data points (sum for counters and histograms), every export appended. */
  metrics: Map<string, ReceivedPoint[]>;
  /** Raw bodies, as text (protobuf is binary: strings in it still show). */
  bodies: string[];
  /** Each request's headers. */
  headers: Record<string, unknown>[];
};

const receivers: Server[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

export async function startReceiver(): Promise<Receiver> {
  const received: Omit<Receiver, "url"> = {
    contentTypes: [],
    spans: [],
    resources: [],
    metrics: new Map(),
    bodies: [],
    headers: [],
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const type = String(request.headers["content-type"] ?? "");
      received.contentTypes.push(type);
      received.headers.push({ ...request.headers });
      received.bodies.push(body.toString("latin1"));
      const json = type.includes("json");
      if (request.url === "/v1/traces") {
        const decoded = json ? jsonTraces(JSON.parse(body.toString("utf8"))) : protoTraces(body);
        received.spans.push(...decoded.spans);
        received.resources.push(...decoded.resources);
      } else if (request.url === "/v1/metrics") {
        const decoded = json ? jsonMetrics(JSON.parse(body.toString("utf8"))) : protoMetrics(body);
        for (const [name, points] of decoded)
          received.metrics.set(name, [...(received.metrics.get(name) ?? []), ...points]);
      }
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      response.end(json ? "{}" : "");
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, ...received };
}

/** The sum of a metric's points whose attributes include `match`. */
export function metricSum(receiver: Receiver, name: string, match: Record<string, unknown> = {}): number {
  return (receiver.metrics.get(name) ?? [])
    .filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value))
    .reduce((sum, point) => sum + point.value, 0);
}

// ---- http/json ----

type JsonAny = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAny[] };
};

function jsonValue(value: JsonAny): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  return undefined;
}

function jsonAttributes(list: { key: string; value: JsonAny }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, jsonValue(value)]));
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON as received
function jsonTraces(body: any): { spans: ReceivedSpan[]; resources: Record<string, unknown>[] } {
  const spans: ReceivedSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  for (const rs of body.resourceSpans ?? []) {
    resources.push(jsonAttributes(rs.resource?.attributes));
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? [])
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          attributes: jsonAttributes(span.attributes),
          events: (span.events ?? []).map((event: { name: string; attributes: never }) => ({
            name: event.name,
            attributes: jsonAttributes(event.attributes),
          })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? "" },
        });
  }
  return { spans, resources };
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON as received
function jsonMetrics(body: any): Map<string, ReceivedPoint[]> {
  const out = new Map<string, ReceivedPoint[]>();
  for (const rm of body.resourceMetrics ?? [])
    for (const sm of rm.scopeMetrics ?? [])
      for (const metric of sm.metrics ?? []) {
        const points =
          metric.sum?.dataPoints ?? metric.histogram?.dataPoints ?? metric.gauge?.dataPoints ?? [];
        out.set(
          metric.name,
          points.map(
            (point: { attributes: never; asDouble?: number; asInt?: number | string; sum?: number }) => ({
              attributes: jsonAttributes(point.attributes),
              value: Number(point.sum ?? point.asDouble ?? point.asInt ?? 0),
            }),
          ),
        );
      }
  return out;
}

// ---- http/protobuf: a minimal wire-format decoder ----

type Field = { no: number; wire: number; bytes?: Buffer; int?: bigint };

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    while (true) {
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, int: varint() });
    else if (wire === 1) {
      out.push({ no, wire, bytes: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ no, wire, bytes: buffer.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ no, wire, bytes: buffer.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

const sub = (list: Field[], no: number) =>
  list.filter((field) => field.no === no).map((field) => fields(field.bytes!));
const text = (list: Field[], no: number) =>
  list.find((field) => field.no === no)?.bytes?.toString("utf8") ?? "";
const hex = (list: Field[], no: number) =>
  list.find((field) => field.no === no)?.bytes?.toString("hex") ?? "";

/** AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array. */
function protoValue(value: Field[]): unknown {
  const field = value[0];
  if (!field) return undefined;
  if (field.no === 1) return field.bytes!.toString("utf8");
  if (field.no === 2) return field.int === 1n;
  if (field.no === 3) return Number(BigInt.asIntN(64, field.int!));
  if (field.no === 4) return field.bytes!.readDoubleLE(0);
  if (field.no === 5) return sub(fields(field.bytes!), 1).map(protoValue);
  return undefined;
}

/** KeyValue: 1 key, 2 value. */
function protoAttributes(list: Field[][]): Record<string, unknown> {
  return Object.fromEntries(list.map((kv) => [text(kv, 1), protoValue(sub(kv, 2)[0] ?? [])]));
}

/** ExportTraceServiceRequest → ResourceSpans(1: resource, 2: scope_spans) → ScopeSpans(2: spans) → Span. */
function protoTraces(body: Buffer): { spans: ReceivedSpan[]; resources: Record<string, unknown>[] } {
  const spans: ReceivedSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  for (const rs of sub(fields(body), 1)) {
    resources.push(protoAttributes(sub(sub(rs, 1)[0] ?? [], 1)));
    for (const ss of sub(rs, 2))
      for (const span of sub(ss, 2)) {
        const status = sub(span, 15)[0] ?? [];
        spans.push({
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          attributes: protoAttributes(sub(span, 9)),
          events: sub(span, 11).map((event) => ({
            name: text(event, 2),
            attributes: protoAttributes(sub(event, 3)),
          })),
          status: {
            code: Number(status.find((field) => field.no === 3)?.int ?? 0n),
            message: text(status, 2),
          },
        });
      }
  }
  return { spans, resources };
}

/**
 * ExportMetricsServiceRequest → ResourceMetrics(2: scope_metrics) → ScopeMetrics(2: metrics) →
 * Metric(1: name; 7 sum, 9 histogram) → data points (7 attributes; sum: 6 as_int / 4 as_double;
 * histogram: 5 sum, 9 attributes).
 */
function protoMetrics(body: Buffer): Map<string, ReceivedPoint[]> {
  const out = new Map<string, ReceivedPoint[]>();
  for (const rm of sub(fields(body), 1))
    for (const sm of sub(rm, 2))
      for (const metric of sub(sm, 2)) {
        const points: ReceivedPoint[] = [];
        for (const sum of sub(metric, 7))
          for (const point of sub(sum, 1)) {
            const double = point.find((field) => field.no === 4)?.bytes;
            const int = point.find((field) => field.no === 6)?.bytes;
            points.push({
              attributes: protoAttributes(sub(point, 7)),
              value: double ? double.readDoubleLE(0) : int ? Number(int.readBigInt64LE(0)) : 0,
            });
          }
        for (const histogram of sub(metric, 9))
          for (const point of sub(histogram, 1)) {
            const sumField = point.find((field) => field.no === 5)?.bytes;
            points.push({
              attributes: protoAttributes(sub(point, 9)),
              value: sumField ? sumField.readDoubleLE(0) : 0,
            });
          }
        out.set(text(metric, 1), points);
      }
  return out;
}
