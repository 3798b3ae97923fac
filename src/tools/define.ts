import * as z from "zod";
import type { Tool, ToolContext, ToolKind, ToolOutcome, ToolOutput } from "./types.js";

/** Default cap on what the model sees from one tool call (characters). */
export const DEFAULT_OUTPUT_LIMIT = 30_000;

export type ToolDefinitionSpec<S extends z.ZodObject> = {
  name: string;
  description: string;
  kind: ToolKind;
  input: S;
  /** Cap on `content` length; the wrapper cuts head+tail and says what it cut. */
  outputLimit?: number;
  run(input: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
};

/**
 * Wraps a tool body with what every tool needs: input validation with an error the model can act on,
 * output truncation with a visible note, abort plumbing and timing. `execute` never throws.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolDefinitionSpec<S>): Tool {
  const jsonSchema = toModelJsonSchema(spec.input);
  const limit = spec.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
  return {
    name: spec.name,
    description: spec.description,
    kind: spec.kind,
    jsonSchema,
    async execute(rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const parsed = spec.input.safeParse(rawInput);
      if (!parsed.success) {
        return {
          content: `InputValidationError: ${spec.name} was called with invalid input. ${describeZodError(parsed.error)}`,
          isError: true,
          errorKind: "invalid_input",
          durationMs: elapsed(),
        };
      }
      if (ctx.signal.aborted) return abortedOutcome(elapsed());
      try {
        const output = await raceAbort(spec.run(parsed.data, ctx), ctx.signal);
        return {
          ...output,
          content: truncateMiddle(output.content, limit),
          isError: output.isError ?? false,
          ...(output.isError ? { errorKind: "failed" as const } : {}),
          durationMs: elapsed(),
        };
      } catch (error) {
        if (ctx.signal.aborted) return abortedOutcome(elapsed());
        return {
          content: `Error: ${error instanceof Error ? error.message : String(error)}`,
          isError: true,
          errorKind: "failed",
          durationMs: elapsed(),
        };
      }
    },
  };
}

function abortedOutcome(durationMs: number): ToolOutcome {
  return {
    content: "The tool call was interrupted by the user.",
    isError: true,
    errorKind: "aborted",
    durationMs,
  };
}

/**
 * How long an aborted tool may take to wind down (kill its process group, SIGKILL after a grace)
 * before the call is reported as interrupted anyway. Waiting matters: a CLI that exits right after
 * the abort would cancel the tool's pending SIGKILL and leave a stubborn child running.
 */
export const ABORT_SETTLE_MS = 2_500;

/** Resolves with the work; after an abort, rejects once the work settles or the settle time is up. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => reject(new Error("aborted")), ABORT_SETTLE_MS);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(timer);
    };
    work.then(
      (value) => {
        settle();
        if (signal.aborted) reject(new Error("aborted"));
        else resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/** Names each offending field so the model can correct its call. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length ? issue.path.join(".") : "(input)";
      return `The field \`${field}\`: ${issue.message}.`;
    })
    .join(" ");
}

/**
 * Keeps the head and tail of an over-long text and states how much was cut. Cuts on code-point
 * boundaries so a surrogate pair is never split.
 */
export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.floor(limit / 2);
  let headEnd = keep;
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  let tailStart = text.length - keep;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  const cut = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n\n[... ${cut} characters truncated ...]\n\n${text.slice(tailStart)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function toModelJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
