import path from "node:path";
import * as z from "zod";
import { once } from "../util/once.js";
import { parseWith, readJsonObject } from "./files.js";

/**
 * Command hooks as the config files declare them (docs/hooks.md). Two formats:
 *
 * - Claude's settings format, used by `hooks` in `.claude/settings.json`, `~/.claude/settings.json`
 *   and cairn's user config: `{ "<Event>": [{ "matcher": "Write|Edit", "hooks": [{ "type":
 *   "command", "command": "…", "timeout": 30 }] }] }`.
 * - Cursor's `hooks.json` (version 1): `{ "version": 1, "hooks": { "<cursorEvent>": [{ "command":
 *   "…" }] } }`.
 *
 * Only the shape is checked here; which events and hook types apply is decided where the hooks are
 * built (src/hooks/), which reports the rest.
 */

const hookEntry = () =>
  z.looseObject(
    {
      type: z.string({ error: "must be a string" }),
      command: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
      timeout: z
        .number({ error: "must be a number of seconds" })
        .positive({ error: "must be positive" })
        .optional(),
    },
    { error: "must be an object" },
  );

/** Built when a file is read (not at start-up). */
export const claudeHooksSchema = once(() =>
  z.record(
    z.string(),
    z.array(
      z.looseObject(
        {
          matcher: z.string({ error: "must be a string" }).optional(),
          hooks: z.array(hookEntry(), { error: "must be an array of hooks" }),
        },
        { error: "must be an object" },
      ),
      { error: "must be an array of matchers" },
    ),
    { error: "must be an object" },
  ),
);

export type ClaudeHooks = z.infer<ReturnType<typeof claudeHooksSchema>>;

const cursorHooksFileSchema = once(() =>
  z.looseObject({
    version: z.literal(1, { error: "must be 1" }),
    hooks: z
      .record(
        z.string(),
        z.array(
          z.looseObject(
            {
              command: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }),
              timeout: z.number({ error: "must be a number of seconds" }).positive().optional(),
            },
            { error: "must be an object" },
          ),
          { error: "must be an array" },
        ),
        { error: "must be an object" },
      )
      .optional(),
  }),
);

export type CursorHooks = Record<string, { command: string; timeout?: number }[]>;

/** The hooks of one file, with where they come from. */
export type ConfiguredHooks =
  | { file: string; level: "user" | "project"; format: "claude"; hooks: ClaudeHooks }
  | { file: string; level: "user" | "project"; format: "cursor"; hooks: CursorHooks };

/** Cursor's hook files: `~/.cursor/hooks.json` (or `$CURSOR_CONFIG_DIR/hooks.json`) and the workspace's. */
export function cursorHookFiles(cwd: string, home: string, env: NodeJS.ProcessEnv) {
  const userDir = env.CURSOR_CONFIG_DIR?.trim() || path.join(home, ".cursor");
  return [
    { file: path.join(userDir, "hooks.json"), level: "user" as const },
    { file: path.join(cwd, ".cursor", "hooks.json"), level: "project" as const },
  ];
}

export async function loadCursorHooks(
  files: readonly { file: string; level: "user" | "project" }[],
): Promise<{ hooks: ConfiguredHooks[]; found: string[] }> {
  const contents = await Promise.all(files.map(({ file }) => readJsonObject(file)));
  const out: { hooks: ConfiguredHooks[]; found: string[] } = { hooks: [], found: [] };
  files.forEach(({ file, level }, index) => {
    const content = contents[index];
    if (content === undefined) return;
    out.found.push(file);
    const parsed = parseWith(file, cursorHooksFileSchema(), content);
    if (parsed.hooks) out.hooks.push({ file, level, format: "cursor", hooks: parsed.hooks });
  });
  return out;
}
