/**
 * JSON helpers of the local (node-llama-cpp) provider: tool input schemas → the JSON Schema subset
 * node-llama-cpp turns into a grammar, and the streamed tool-call arguments → the tool input.
 *
 * node-llama-cpp's grammar makes every listed object property required. Optional properties are
 * therefore offered as "value or null", and a `null` member is dropped from the input the tool sees
 * (the model wrote null = it left the property out).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

const BASIC_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);
const STRING_FORMATS = new Set(["date-time", "date", "time"]);

/** Any JSON value, spelled in the subset node-llama-cpp understands. */
const ANY_JSON: Schema = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "array" },
    { type: "object", additionalProperties: true },
  ],
};

/**
 * Converts a tool's JSON Schema (as produced from its zod schema) into node-llama-cpp's
 * `GbnfJsonSchema`. Keywords the grammar cannot express (patterns, numeric ranges, other string
 * formats) are dropped: the tool still validates its input and reports violations to the model.
 */
export function toGrammarSchema(schema: unknown): Schema {
  return convert(schema, true);
}

function convert(input: unknown, root = false): Schema {
  if (input === true || input === undefined) return ANY_JSON;
  if (input === false || input === null || typeof input !== "object" || Array.isArray(input))
    return { type: "null" };
  const schema = input as Schema;
  const out = withDescription(schema, convertCore(schema));
  const defs = (schema.$defs ?? schema.definitions) as Record<string, unknown> | undefined;
  if (defs && typeof defs === "object") {
    out.$defs = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, convert(def)]));
  }
  if (root && out.type !== "object" && !out.$ref) {
    // Tool inputs are objects; anything else is offered as an object with no fixed fields.
    return { type: "object", additionalProperties: true };
  }
  return out;
}

function convertCore(schema: Schema): Schema {
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref.replace(/^#\/definitions\//, "#/$defs/");
    return ref.startsWith("#/$defs/") ? { $ref: ref } : ANY_JSON;
  }
  if ("const" in schema) return { const: schema.const as Json };
  if (Array.isArray(schema.enum)) return { enum: schema.enum as Json[] };
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return { oneOf: alternatives.map((alt) => convert(alt)) };
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.length === 1 ? convert(schema.allOf[0]) : ANY_JSON;
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    if (type.every((t) => BASIC_TYPES.has(String(t)))) return { type: [...type] };
    return { oneOf: type.map((t) => convertCore({ ...schema, type: t })) };
  }
  switch (type) {
    case "object":
      return convertObject(schema);
    case "array": {
      const out: Schema = { type: "array" };
      if (schema.items !== undefined && !Array.isArray(schema.items)) out.items = convert(schema.items);
      const prefix = schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : undefined);
      if (Array.isArray(prefix)) out.prefixItems = prefix.map((item) => convert(item));
      copyNumbers(schema, out, ["minItems", "maxItems"]);
      return out;
    }
    case "string": {
      if (typeof schema.format === "string" && STRING_FORMATS.has(schema.format))
        return { type: "string", format: schema.format };
      const out: Schema = { type: "string" };
      copyNumbers(schema, out, ["minLength", "maxLength"]);
      return out;
    }
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type };
    default:
      if (schema.properties) return convertObject(schema);
      return ANY_JSON;
  }
}

function convertObject(schema: Schema): Schema {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const out: Schema = { type: "object" };
  const converted: Record<string, Schema> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = convert(property);
    if (required.has(name)) {
      converted[name] = value;
      continue;
    }
    const { description, ...rest } = value;
    converted[name] = { oneOf: [rest, { type: "null" }], ...(description ? { description } : {}) };
  }
  if (Object.keys(converted).length > 0) {
    out.properties = converted;
    // Documentation only (the grammar requires every property): the model reads the schema.
    const listed = Object.keys(converted).filter((name) => required.has(name));
    if (listed.length > 0) out.required = listed;
  }
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== false && Object.keys(converted).length === 0) {
    out.additionalProperties = additional === true ? true : convert(additional);
  }
  return out;
}

function withDescription(schema: Schema, out: Schema): Schema {
  if (typeof schema.description === "string" && !out.$ref) out.description = schema.description;
  return out;
}

function copyNumbers(from: Schema, to: Schema, keys: string[]): void {
  for (const key of keys) if (typeof from[key] === "number") to[key] = from[key];
}

/** Removes object members whose value is null, at any depth (see the module comment). */
export function dropNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNullMembers);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, member]) => member !== null)
        .map(([key, member]) => [key, dropNullMembers(member)]),
    );
  }
  return value;
}

type Frame = { kind: "object" | "array"; emitted: number };

/**
 * Rewrites a tool call's argument text as it streams: whitespace outside strings is dropped,
 * object members whose value is `null` are left out, and anything after the top-level value
 * (a chat template's call suffix) is ignored. Concatenating what `push` returns gives compact JSON
 * of the same value as `dropNullMembers(JSON.parse(text))`.
 */
export class ToolInputStream {
  private readonly stack: Frame[] = [];
  /** Key text (with quotes and colon) held back until the member's value shows it is not null. */
  private pendingKey = "";
  private mode:
    | "value"
    | "member"
    | "key"
    | "colon"
    | "memberValue"
    | "string"
    | "literal"
    | "after"
    | "done" = "value";
  private inKeyString = false;
  private escaped = false;
  private skippingNull = false;
  private literal = "";
  private out = "";

  /** Feeds raw argument text; returns the text to emit now. */
  push(chunk: string): string {
    for (const char of chunk) this.step(char);
    const emitted = this.out;
    this.out = "";
    return emitted;
  }

  /** Whether the top-level value has been closed. */
  get complete(): boolean {
    return this.mode === "done";
  }

  private step(char: string): void {
    switch (this.mode) {
      case "done":
        return;
      case "string":
        this.emitString(char);
        return;
      case "literal":
        if (/[A-Za-z0-9+\-.]/.test(char)) {
          this.literal += char;
          if (!this.skippingNull) this.out += char;
          return;
        }
        this.endValue();
        this.step(char);
        return;
      case "key":
        if (this.inKeyString) {
          this.pendingKey += char;
          if (this.escaped) this.escaped = false;
          else if (char === "\\") this.escaped = true;
          else if (char === '"') {
            this.inKeyString = false;
            this.mode = "colon";
          }
          return;
        }
        if (isSpace(char)) return;
        if (char === '"') {
          this.pendingKey = '"';
          this.inKeyString = true;
          return;
        }
        if (char === "}") this.close();
        return;
      case "colon":
        if (char === ":") {
          this.pendingKey += ":";
          this.mode = "memberValue";
        }
        return;
      case "member":
        // After `{` or `,` inside an object: a key or the end of the object.
        this.mode = "key";
        this.step(char);
        return;
      case "memberValue":
        if (isSpace(char)) return;
        if (char === "n") {
          this.skippingNull = true;
          this.literal = "n";
          this.pendingKey = "";
          this.mode = "literal";
          return;
        }
        this.flushMember();
        this.mode = "value";
        this.step(char);
        return;
      case "value":
        if (isSpace(char)) return;
        if (char === "{" || char === "[") {
          this.out += char;
          this.stack.push({ kind: char === "{" ? "object" : "array", emitted: 0 });
          this.mode = char === "{" ? "member" : "value";
          return;
        }
        if (char === "]" && this.top()?.kind === "array") {
          this.close();
          return;
        }
        if (char === '"') {
          this.out += char;
          this.mode = "string";
          return;
        }
        this.literal = char;
        this.out += char;
        this.mode = "literal";
        return;
      case "after":
        if (isSpace(char)) return;
        if (char === ",") {
          const frame = this.top();
          if (frame?.kind === "object") this.mode = "member";
          else {
            this.out += ",";
            this.mode = "value";
          }
          return;
        }
        if (char === "}" || char === "]") this.close();
        return;
    }
  }

  private emitString(char: string): void {
    this.out += char;
    if (this.escaped) this.escaped = false;
    else if (char === "\\") this.escaped = true;
    else if (char === '"') this.endValue();
  }

  private flushMember(): void {
    const frame = this.top();
    if (frame?.kind === "object") {
      if (frame.emitted > 0) this.out += ",";
      frame.emitted += 1;
    }
    this.out += this.pendingKey;
    this.pendingKey = "";
  }

  private endValue(): void {
    this.skippingNull = false;
    this.literal = "";
    if (this.stack.length === 0) this.mode = "done";
    else this.mode = "after";
  }

  private close(): void {
    const frame = this.stack.pop();
    if (!frame) return;
    this.out += frame.kind === "object" ? "}" : "]";
    this.endValue();
  }

  private top(): Frame | undefined {
    return this.stack.at(-1);
  }
}

function isSpace(char: string): boolean {
  return char === " " || char === "\n" || char === "\r" || char === "\t";
}
