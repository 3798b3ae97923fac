import type { ValidateFunction } from "ajv";
import { type AjvLike, createAjv } from "../tools/json-schema.js";
import type { Tool, ToolDeclaration, ToolOutcome, ToolValidation } from "../tools/types.js";
import { InvalidOptionsError, type OutputFormat } from "./options.js";

/**
 * Structured output (`outputFormat: { type: "json_schema", schema }`): the model delivers its final
 * answer by calling a dedicated tool whose input schema is the caller's schema. The input is validated
 * with a real JSON Schema validator (Ajv); an invalid call gets the validation errors back as its tool
 * result and the model tries again, a bounded number of times. A valid call is a terminal outcome:
 * the engine ends the run once its batch is done, without another model call.
 */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/**
 * The SDK's own answer channel: it touches nothing outside the conversation, so the permission
 * rules never ask about it, in any mode.
 */
export const STRUCTURED_OUTPUT_DECLARATION = {
  name: STRUCTURED_OUTPUT_TOOL,
  effects: { kind: "other", readOnly: true, network: false },
} as const satisfies ToolDeclaration;

/**
 * Retries after a failed attempt (an invalid call, or a turn ended without the call): three attempts
 * in all. Kept below the engine's stop after three identical failing calls, so running out always
 * reports `error_max_structured_output_retries`.
 */
export const MAX_STRUCTURED_OUTPUT_RETRIES = 2;

export const STRUCTURED_OUTPUT_INSTRUCTIONS =
  `Your final answer must be given by calling the ${STRUCTURED_OUTPUT_TOOL} tool exactly once, ` +
  "with input matching its schema, after you have done the work. Do not write the answer as text.";

export const STRUCTURED_OUTPUT_NUDGE =
  `You ended your turn without calling the ${STRUCTURED_OUTPUT_TOOL} tool. ` +
  `Call ${STRUCTURED_OUTPUT_TOOL} now with your final answer, matching its input schema.`;

const WRAPPED_KEY = "output";

/** Compiles the schema (throwing `InvalidOptionsError` for an invalid one) into a per-query state factory. */
export function compileOutputFormat(format: OutputFormat): () => StructuredOutputRun {
  const schema = format.schema;
  const ajv = createAjv(schema);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new InvalidOptionsError(
      `cairn query(): invalid option "outputFormat.schema": not a valid JSON Schema: ${(error as Error).message}.`,
      "outputFormat.schema",
    );
  }
  // Tool inputs must be JSON objects; any other schema is wrapped as { output: <schema> }.
  const wrapped = schema.type !== "object";
  const { $schema: _ignored, ...toolSchema } = schema;
  const inputSchema: Record<string, unknown> = wrapped
    ? {
        type: "object",
        properties: { [WRAPPED_KEY]: toolSchema },
        required: [WRAPPED_KEY],
        additionalProperties: false,
      }
    : toolSchema;
  return () => new StructuredOutputRun(validate, ajv, inputSchema, wrapped);
}

/** The structured-output state of one turn: the tool, what it accepted, how many attempts failed. */
export class StructuredOutputRun {
  /** The validated value, once the model delivered one. */
  value: unknown;
  accepted = false;
  failures = 0;
  readonly tool: Tool;

  constructor(
    private readonly validate: ValidateFunction,
    private readonly ajv: AjvLike,
    inputSchema: Record<string, unknown>,
    private readonly wrapped: boolean,
  ) {
    this.tool = {
      ...STRUCTURED_OUTPUT_DECLARATION,
      description:
        "Delivers your final answer as structured data. Call it exactly once, when you have the answer, with input matching the schema. " +
        "If the input does not match, the errors are returned and you must call it again with corrected input.",
      jsonSchema: inputSchema,
      // Checking the answer against the schema is this tool's work (it counts the attempts), so it
      // happens when the call runs; here only the shape every tool input has.
      validate: (rawInput: unknown): ToolValidation =>
        rawInput !== null && typeof rawInput === "object" && !Array.isArray(rawInput)
          ? { ok: true, input: rawInput as Record<string, unknown> }
          : {
              ok: false,
              message: `InputValidationError: ${STRUCTURED_OUTPUT_TOOL} needs a JSON object as input.`,
            },
      execute: async (input: Record<string, unknown>): Promise<ToolOutcome> => this.accept(input),
    };
  }

  get exhausted(): boolean {
    return this.failures > MAX_STRUCTURED_OUTPUT_RETRIES;
  }

  /** Counts a turn that ended without the call. */
  missed(): void {
    this.failures += 1;
  }

  private accept(rawInput: unknown): ToolOutcome {
    if (this.accepted) {
      return {
        content: "The structured output was already delivered.",
        isError: false,
        terminal: true,
        durationMs: 0,
      };
    }
    const value = this.wrapped ? (rawInput as Record<string, unknown> | undefined)?.[WRAPPED_KEY] : rawInput;
    if (this.validate(value)) {
      this.value = structuredClone(value);
      this.accepted = true;
      return {
        content: "Structured output accepted.",
        data: { structured_output: value },
        isError: false,
        // The run ends after this call's batch, without another model call.
        terminal: true,
        durationMs: 0,
      };
    }
    this.failures += 1;
    const problems = this.ajv.errorsText(this.validate.errors, { dataVar: "output" });
    return {
      content: `The input does not match the required schema: ${problems}. Call ${STRUCTURED_OUTPUT_TOOL} again with corrected input.`,
      isError: true,
      errorKind: "invalid_input",
      durationMs: 0,
    };
  }
}
