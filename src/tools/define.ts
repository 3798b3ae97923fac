import * as z from "zod";
import { deniedAccess } from "../sandbox/denied-paths.js";
import { nowMs } from "../util/clock.js";
import { once } from "../util/once.js";
import { resolveToolPath } from "./paths.js";
import type {
  Tool,
  ToolContext,
  ToolDisplaySpec,
  ToolEffects,
  ToolOutcome,
  ToolOutput,
  ToolPathAccess,
  ToolPayload,
  ToolValidation,
} from "./types.js";

/** Default cap on what the model sees from one tool call (characters). */
export const DEFAULT_OUTPUT_LIMIT = 30_000;

/** `ToolEffects` with `paths` and `command` written for the tool's validated input. */
export type ToolEffectsSpec<I> = Omit<ToolEffects, "paths" | "command"> & {
  paths?(input: I, cwd: string): ToolPathAccess[] | { uncheckable: string };
  command?(input: I): string | undefined;
};

export type ToolDefinitionSpec<S extends z.ZodObject> = {
  name: string;
  description: string;
  /** What the tool touches (see `ToolEffects`); a tool without it is always asked about. */
  effects?: ToolEffectsSpec<z.infer<S>>;
  payload?: ToolPayload;
  /** How a call is shown (see `ToolDisplay`), from its validated input. */
  display?: ToolDisplaySpec<z.infer<S>>;
  /** The permission modes the tool is offered in (default: every mode). */
  offeredInModes?: readonly string[];
  /**
   * The input schema, or a function building it: a built-in tool passes a function, so zod's
   * schemas are built on the first call rather than at start-up.
   */
  input: S | (() => S);
  /**
   * The input schema as JSON Schema, when computed ahead (the built-in tools':
   * src/tools/builtin-json-schemas.ts); otherwise derived from `input` when first asked for.
   */
  jsonSchema?: Record<string, unknown>;
  /** Cap on `content` length; the wrapper cuts head+tail and says what it cut. */
  outputLimit?: number;
  run(input: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
};

/**
 * Wraps a tool body with what every tool needs: input validation with an error the model can act on,
 * effects derived from validated input only, output truncation with a visible note, abort plumbing
 * and timing. `execute` never throws.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolDefinitionSpec<S>): Tool {
  const schema = once(typeof spec.input === "function" ? spec.input : () => spec.input as S);
  const jsonSchema = once(() => spec.jsonSchema ?? toModelJsonSchema(schema()));
  const limit = spec.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
  const validate = (rawInput: unknown): ToolValidation => {
    const parsed = schema().safeParse(rawInput);
    if (parsed.success) return { ok: true, input: parsed.data as Record<string, unknown> };
    return { ok: false, message: invalidOutcome(spec.name, parsed.error).content };
  };
  const tool: Tool = {
    name: spec.name,
    description: spec.description,
    get jsonSchema() {
      return jsonSchema();
    },
    ...(spec.effects ? { effects: checkedEffects(schema, spec.effects) } : {}),
    ...(spec.payload ? { payload: spec.payload } : {}),
    ...(spec.display ? { display: checkedDisplay(schema, spec.display) } : {}),
    ...(spec.offeredInModes ? { offeredInModes: spec.offeredInModes } : {}),
    validate,
    async execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
      const started = nowMs();
      const elapsed = () => Math.round(nowMs() - started);
      // Checked again (cheap, and the schemas have no transforms), so no caller can run input that
      // skipped `validate`.
      const parsed = schema().safeParse(input);
      if (!parsed.success) return { ...invalidOutcome(spec.name, parsed.error), durationMs: elapsed() };
      if (ctx.signal.aborted) return abortedOutcome(elapsed());
      const denied = hasDeniedPaths(ctx)
        ? deniedPathOf(spec.effects?.paths?.(parsed.data, ctx.cwd), ctx)
        : undefined;
      if (denied) return { content: denied, isError: true, errorKind: "denied", durationMs: elapsed() };
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
  inputSchemas.set(tool, schema);
  return tool;
}

const inputSchemas = new WeakMap<Tool, () => z.ZodObject>();

/** The zod schema a tool made with `defineTool` validates its input with (built now if not yet). */
export function inputSchemaOf(tool: Tool): z.ZodObject | undefined {
  return inputSchemas.get(tool)?.();
}

/**
 * The declared effects, callable with any input: `paths` and `command` see only input the schema
 * accepts (the same value `run` gets), so a permission check never judges something else than what
 * runs. Invalid input has uncheckable paths and no command.
 */
function checkedEffects<S extends z.ZodObject>(
  schema: () => S,
  declared: ToolEffectsSpec<z.infer<S>>,
): ToolEffects {
  const { paths, command, ...flags } = declared;
  const parse = (input: Record<string, unknown>) => schema().safeParse(input);
  return {
    ...flags,
    ...(paths
      ? {
          paths: (input: Record<string, unknown>, cwd: string) => {
            const parsed = parse(input);
            return parsed.success ? paths(parsed.data, cwd) : { uncheckable: "the input is invalid" };
          },
        }
      : {}),
    ...(command
      ? {
          command: (input: Record<string, unknown>) => {
            const parsed = parse(input);
            return parsed.success ? command(parsed.data) : undefined;
          },
        }
      : {}),
  };
}

/**
 * The first declared path the run's settings deny (sandbox `filesystem.denyRead` / `denyWrite`),
 * as the refusal the model reads: checked here, after every permission decision, so that no allow
 * rule, mode, hook or callback lets a tool past it.
 */
function deniedPathOf(
  paths: ToolPathAccess[] | { uncheckable: string } | undefined,
  ctx: ToolContext,
): string | undefined {
  if (!paths || "uncheckable" in paths || !ctx.sandbox) return undefined;
  for (const entry of paths) {
    const why = deniedAccess(ctx.sandbox, resolveToolPath(ctx.cwd, entry.path), entry.access);
    if (why) return why;
  }
  return undefined;
}

function hasDeniedPaths(ctx: ToolContext): boolean {
  return (ctx.sandbox?.readDenied.length ?? 0) > 0 || (ctx.sandbox?.writeDenied.length ?? 0) > 0;
}

/** The declared display, callable with any input: invalid input gets none (the default is shown). */
function checkedDisplay<S extends z.ZodObject>(
  schema: () => S,
  display: ToolDisplaySpec<z.infer<S>>,
): ToolDisplaySpec<Record<string, unknown>> {
  return (input, cwd, options) => {
    const parsed = schema().safeParse(input);
    return parsed.success ? display(parsed.data, cwd, options) : {};
  };
}

function invalidOutcome(toolName: string, error: z.ZodError): ToolOutcome {
  return {
    content: `InputValidationError: ${toolName} was called with invalid input. ${describeZodError(error)}`,
    isError: true,
    errorKind: "invalid_input",
    durationMs: 0,
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

/** The JSON Schema the model is sent for `schema` (what src/tools/builtin-json-schemas.ts holds). */
export function toModelJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
