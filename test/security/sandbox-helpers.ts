import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { resolveSandboxPolicy } from "../../src/sandbox/policy.js";
import { reply } from "../../src/testing/index.js";
import { findOnPath } from "../../src/tools/process-group.js";
import { MODEL, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

/**
 * Why the sandbox cannot run on this machine, or undefined when it can (bubblewrap installed and
 * allowed to create namespaces). Tests that need it are skipped with this reason in their name.
 */
export const sandboxUnavailable: string | undefined = await resolveSandboxPolicy(
  { mode: "auto" },
  { roots: [process.cwd()], env: process.env },
).then(({ policy, warning }) => (policy.mode === "enabled" ? undefined : (warning ?? "unknown reason")));

export const needsSandbox = sandboxUnavailable ? ` (SKIPPED: ${sandboxUnavailable})` : "";

export type BashRun = { code: number | null; stdout: string; stderr: string; output: string; dir: string };

/**
 * One print-mode run of the built CLI in `dir` (default: a fresh workspace) whose model calls Bash
 * with `command`, then answers "Done.". `output` is what the command printed, as the model saw it.
 */
export async function runBash(
  command: string,
  args: string[],
  options: { dir?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<BashRun> {
  const server = await startServer([reply().tool("Bash", { command }), reply().text("Done.")]);
  const dir = options.dir ?? workspace();
  const spawned = spawnCli(["-p", "Do the task", "--model", MODEL, "--output-format", "json", ...args], {
    cwd: dir,
    env: { ...serverEnv(server), ...options.env },
  });
  const { code } = await spawned.exited;
  return { code, ...spawned.out, output: toolResultText(server.requests[1]?.body), dir };
}

/** The first tool result in a request the CLI sent to the model. */
function toolResultText(request: unknown): string {
  type Block = { type?: string; content?: unknown };
  const body = request as { messages?: { content?: Block[] | string }[] } | undefined;
  const blocks = (body?.messages ?? []).flatMap((message) =>
    Array.isArray(message.content) ? message.content : [],
  );
  const result = blocks.find((block) => block.type === "tool_result");
  return typeof result?.content === "string" ? result.content : JSON.stringify(result?.content ?? "");
}

/**
 * A PATH on which bash is found but bubblewrap is not: what a machine without the `bubblewrap`
 * package looks like to cairn.
 */
export async function pathWithoutBwrap(): Promise<string> {
  const bin = tempDir("cairn-nobwrap-");
  for (const tool of ["bash", "touch", "cat", "sleep", "setsid"]) {
    const found = await findOnPath(tool, process.env.PATH ?? "");
    if (found) symlinkSync(found, join(bin, tool));
  }
  mkdirSync(join(bin, "empty"), { recursive: true });
  return bin;
}
