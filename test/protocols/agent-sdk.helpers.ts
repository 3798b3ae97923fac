import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScriptedServer } from "../../src/testing/index.js";
import { modelFreeEnv } from "../helpers/env.js";

/** cairn's CLI entry, as a program written for the official agent SDK names it. */
export const CAIRN_CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/**
 * The options every program here adds to its own: cairn as the CLI, the scripted server as the
 * model, a throw-away CAIRN_HOME. The SDK's `env` replaces the child's whole environment.
 */
export function throughCairn(server: ScriptedServer, cwd: string, extraEnv: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {
    ...modelFreeEnv(),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "test",
    ...extraEnv,
  };
  return {
    pathToClaudeCodeExecutable: CAIRN_CLI,
    executable: "node" as const,
    cwd,
    env,
    stderr: (line: string) => stderrLines.push(line),
  };
}

/** What cairn wrote on stderr during the tests (the SDK hands it to `options.stderr`). */
export const stderrLines: string[] = [];

export function filePath(dir: string, name: string): string {
  return join(dir, name);
}
