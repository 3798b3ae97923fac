import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

/** The published JSON Schemas (docs/schema/), one per event, compiled once per test file. */
const SCHEMA_DIR = fileURLToPath(new URL("../../docs/schema/", import.meta.url));
const BASE = "https://cairn.invalid/schema/print-mode/";

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
for (const file of readdirSync(SCHEMA_DIR).filter((name) => name.endsWith(".schema.json"))) {
  ajv.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, file), "utf8")));
}

export const SCHEMA_FILES = readdirSync(SCHEMA_DIR).filter((name) => name.endsWith(".schema.json"));

/** Errors of `value` against docs/schema/<file> (empty when valid). */
export function schemaErrors(value: unknown, file = "event.schema.json"): string[] {
  const validate = ajv.getSchema(`${BASE}${file}`);
  if (!validate) throw new Error(`no schema ${file}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
}

/**
 * Parses one output line and checks it against the schema of its event (event.schema.json picks
 * it by type and subtype). Throws with the line and the schema errors when it does not fit.
 */
export function validLine(line: string): Record<string, unknown> {
  const value = JSON.parse(line) as Record<string, unknown>;
  const file = schemaFileFor(value);
  const errors = schemaErrors(value, file);
  if (errors.length > 0) throw new Error(`${file}: ${errors.join("; ")}\n  line: ${line}`);
  return value;
}

function schemaFileFor(value: Record<string, unknown>): string {
  switch (value.type) {
    case "system":
      return value.subtype === "compact_boundary"
        ? "system-compact-boundary.schema.json"
        : "system-init.schema.json";
    case "user":
      return "user.schema.json";
    case "assistant":
      return "assistant.schema.json";
    case "tool_call":
      return value.subtype === "started"
        ? "tool-call-started.schema.json"
        : "tool-call-completed.schema.json";
    case "result":
      return "result.schema.json";
    default:
      return "event.schema.json";
  }
}
