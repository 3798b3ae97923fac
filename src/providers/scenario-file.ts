import * as z from "zod";
import { readCappedText } from "../util/read-capped.js";
import type { Scenario, ScenarioStep } from "./scenario.js";
import { ConfigError } from "./types.js";

const usageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    cache_read_input_tokens: z.number().int().nonnegative(),
    cache_creation_input_tokens: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

const citationSchema = z.object({ url: z.string(), title: z.string(), cited_text: z.string() }).strict();

const blockSchema = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("text"), text: z.string(), citations: z.array(citationSchema).optional() })
    .strict(),
  z.object({ type: z.literal("thinking"), thinking: z.string() }).strict(),
  z
    .object({
      type: z.literal("tool_use"),
      name: z.string().min(1),
      input: z.record(z.string(), z.unknown()),
      id: z.string().min(1).optional(),
    })
    .strict(),
  // A search the provider runs on its side (docs/scenarios.md).
  z
    .object({
      type: z.literal("web_search"),
      query: z.string(),
      results: z.array(
        z.object({ url: z.string(), title: z.string(), page_age: z.string().nullable().optional() }).strict(),
      ),
      error: z.string().min(1).optional(),
      id: z.string().min(1).optional(),
    })
    .strict(),
]);

export const stepSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("reply"),
      content: z.array(blockSchema),
      stopReason: z
        .enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"])
        .optional(),
      usage: usageSchema.optional(),
      cutAfterEvents: z.number().int().nonnegative().optional(),
      stall: z
        .object({ afterEvents: z.number().int().nonnegative(), ms: z.number().nonnegative() })
        .optional(),
      delayPerEventMs: z.number().nonnegative().optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal("error"),
      status: z.number().int().min(400).max(599),
      retryAfter: z.number().nonnegative().optional(),
      message: z.string().optional(),
      errorType: z.string().optional(),
    })
    .strict(),
  z.object({ kind: z.literal("hang") }).strict(),
]);

export const scenarioSchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1),
    description: z.string().optional(),
    model: z.string().optional(),
    chunkSize: z.number().int().positive().optional(),
    steps: z.array(stepSchema).min(1),
  })
  .strict();

/** Parses a scenario from JSON text; errors name the source and the offending field. */
export function parseScenario(text: string, source: string): Scenario {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Scenario file ${source} is not valid JSON: ${(error as Error).message}`);
  }
  // Files may omit `kind` on replies: it is the common case.
  if (json && typeof json === "object" && Array.isArray((json as { steps?: unknown }).steps)) {
    for (const step of (json as { steps: Record<string, unknown>[] }).steps) {
      if (step && typeof step === "object" && step.kind === undefined) step.kind = "reply";
    }
  }
  const parsed = scenarioSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join(".") : "(root)";
    throw new ConfigError(`Scenario file ${source} is invalid at ${where}: ${issue.message}`);
  }
  const { $schema: _ignored, ...scenario } = parsed.data;
  return scenario as Scenario;
}

/**
 * Checks steps built in code (e.g. passed to the scripted server) against the file schema, so a
 * malformed step fails at start-up with its position rather than as a confusing reply later.
 * `firstIndex` is the position of `steps[0]` in the whole scenario.
 */
export function validateSteps(
  steps: readonly ScenarioStep[],
  source: string,
  firstIndex = 0,
): ScenarioStep[] {
  return steps.map((step, offset) => {
    const parsed = stepSchema.safeParse(step);
    if (parsed.success) return step;
    const issue = parsed.error.issues[0]!;
    const where = ["steps", firstIndex + offset, ...issue.path].join(".");
    throw new ConfigError(`${source}: invalid step at ${where}: ${issue.message}`);
  });
}

export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readCappedText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (error as Error).message;
    throw new ConfigError(`Cannot read scenario file ${path}: ${reason}`);
  }
  return parseScenario(text, path);
}
