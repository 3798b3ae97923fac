import type { ErrorObject, ValidateFunction } from "ajv";
import { lazyRequire } from "../util/lazy-require.js";

// Ajv is CommonJS: required, not imported, so the bundle keeps its own module shape.
const require = lazyRequire(import.meta.url);

export type AjvLike = {
  compile(schema: Record<string, unknown>): ValidateFunction;
  errorsText(errors?: ErrorObject[] | null, options?: { separator?: string; dataVar?: string }): string;
};

/** Ajv for the schema's declared draft (2020-12 and 2019-09 have their own classes; default draft-07). */
export function createAjv(schema: Record<string, unknown>): AjvLike {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  // logger: false — Ajv's console warnings (unknown formats) are a library's lines, not cairn's.
  const options = { allErrors: true, strict: false, logger: false as const };
  if (declared.includes("2020-12")) {
    const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    return new Ajv2020(options);
  }
  if (declared.includes("2019-09")) {
    const { Ajv2019 } = require("ajv/dist/2019.js") as typeof import("ajv/dist/2019.js");
    return new Ajv2019(options);
  }
  const { Ajv } = require("ajv") as typeof import("ajv");
  return new Ajv(options);
}
