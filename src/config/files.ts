import type * as z from "zod";
import { mayExist } from "../util/may-exist.js";
import { readCappedText } from "../util/read-capped.js";

/** A config file cairn cannot use as written: named, with the key at fault. Exit 2 in the CLI. */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "ConfigFileError";
  }
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The file's JSON object; undefined when there is no such file. Anything else unreadable throws.
 *
 * Read synchronously, after a `stat` that answers "no such file" without an exception: a run looks
 * for about twenty config files that mostly do not exist, and each missing one read through
 * `fs/promises` cost an error object with its stack, about 1 ms of every start in all (small
 * files, read once per run, so nothing waits behind them).
 */
export async function readJsonObject(file: string): Promise<JsonObject | undefined> {
  let text: string;
  try {
    if (!mayExist(file)) return undefined;
    text = readCappedText(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ConfigFileError(file, `cannot be read (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(file, `is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new ConfigFileError(file, "must contain a JSON object");
  return value;
}

/** Parses `value` with `schema`; the first problem becomes a ConfigFileError naming its key. */
export function parseWith<S extends z.ZodType>(file: string, schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = issue.path.join(".");
  throw new ConfigFileError(file, `${key || "(file)"}: ${issue.message}`);
}

/**
 * The dotted keys of `value` (objects walked into the dotted names `nested` lists), e.g. `model`,
 * `permissions.allow`: what a file sets, to compare with what cairn applies.
 */
export function keysOf(
  value: JsonObject,
  nested: readonly string[] = ["permissions"],
  prefix = "",
): string[] {
  const keys: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const name = `${prefix}${key}`;
    if (nested.includes(name) && isObject(inner)) keys.push(...keysOf(inner, nested, `${name}.`));
    else keys.push(name);
  }
  return keys;
}
