import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { reply } from "../../../src/testing/index.js";
import { MODEL, serverEnv, spawnCli, startServer } from "../../conformance/pm/helpers.js";
import { modelFreeEnv } from "../../helpers/env.js";
import type { AttackCase, Call, Effect, Mode } from "./types.js";

/** A case with its id and family, as the suite runs it. */
export type NamedCase = AttackCase & { id: string; family: string };

/** Where one run of the cases lives: `root/ws/<id>` inside, `root/outside/<id>` and `root/home` outside. */
export type Layout = { root: string; ws: string; home: string };

export function layout(root: string): Layout {
  return { root, ws: path.join(root, "ws"), home: path.join(root, "home") };
}

function dirs(at: Layout, c: NamedCase) {
  return { case: path.join(at.ws, c.id), out: path.join(at.root, "outside", c.id), home: at.home };
}

/** Replaces `{case}`, `{out}`, `{home}`, `{id}` in a case's strings. */
export function fill(text: string, at: Layout, c: NamedCase): string {
  const d = dirs(at, c);
  return text
    .replaceAll("{case}", d.case)
    .replaceAll("{out}", d.out)
    .replaceAll("{home}", d.home)
    .replaceAll("{id}", c.id);
}

/** Creates the case's files, links and setup in `at`. */
export function materialize(at: Layout, c: NamedCase): void {
  const d = dirs(at, c);
  for (const dir of [d.case, d.out, d.home]) mkdirSync(dir, { recursive: true });
  const write = (base: string, files: Record<string, string> | undefined) => {
    for (const [name, content] of Object.entries(files ?? {})) {
      const file = path.join(base, fill(name, at, c));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, fill(content, at, c), { mode: 0o755 });
    }
  };
  write(d.case, c.files);
  write(d.out, c.outside);
  for (const [name, target] of Object.entries(c.links ?? {}))
    symlinkSync(fill(target, at, c), path.join(d.case, name));
  if (c.setup) {
    const result = spawnSync("bash", ["-c", fill(c.setup, at, c)], {
      cwd: d.case,
      env: plainEnv(at),
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`setup of ${c.id} failed: ${result.stderr}`);
  }
}

/** The environment of the controls and of the setup: no cairn, no protection. */
function plainEnv(at: Layout): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...modelFreeEnv(), HOME: at.home };
  for (const name of Object.keys(env)) if (name.startsWith("GIT_")) delete env[name];
  return env;
}

/** Runs the case's calls directly (bash, the file system): the positive control. Returns their output. */
export function runWithoutCairn(at: Layout, c: NamedCase): string {
  const d = dirs(at, c);
  let output = "";
  for (const call of c.calls) {
    if (call.tool === "Bash") {
      const result = spawnSync("bash", ["-c", fill(call.command, at, c)], {
        cwd: d.case,
        env: plainEnv(at),
        encoding: "utf8",
        timeout: 10_000,
        // stdin as cairn's Bash tool has it (/dev/null). A pipe from Node is a socket, and a bash
        // whose stdin is a socket and whose SHLVL is unset thinks sshd started it: it reads
        // ~/.bashrc instead of BASH_ENV, and the BASH_ENV controls fail for that reason alone.
        stdio: ["ignore", "pipe", "pipe"],
      });
      output += `${result.stdout}${result.stderr}`;
    } else if (call.tool === "Write") {
      const file = path.resolve(d.case, fill(call.file_path, at, c));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, fill(call.content, at, c));
    } else {
      output += readFileSync(path.resolve(d.case, fill(call.file_path, at, c)), "utf8");
    }
  }
  return output;
}

/** Whether the case's effect is there (after its calls ran, with `output` what reached the model). */
export function effectSeen(at: Layout, c: NamedCase, output: string): boolean {
  const effect: Effect = c.effect;
  if ("output" in effect) return output.includes(fill(effect.output, at, c));
  if ("gone" in effect) return !existsSync(path.resolve(dirs(at, c).case, fill(effect.gone, at, c)));
  const file = path.resolve(dirs(at, c).case, fill(effect.file, at, c));
  if (!existsSync(file)) return false;
  return effect.contains === undefined || readFileSync(file, "utf8").includes(fill(effect.contains, at, c));
}

/** A call as the model makes it from the workspace root: into the case's directory first. */
function toolUse(at: Layout, c: NamedCase, call: Call): [string, Record<string, unknown>] {
  if (call.tool === "Bash")
    return ["Bash", { command: `cd ${c.id} && ${fill(call.command, at, c)}`, timeout: 10_000 }];
  const file = fill(call.file_path, at, c);
  const filePath = path.isAbsolute(file) ? file : `${c.id}/${file}`;
  return call.tool === "Write"
    ? ["Write", { file_path: filePath, content: fill(call.content, at, c) }]
    : ["Read", { file_path: filePath }];
}

/**
 * Runs every case's calls in ONE print-mode run of the built CLI (one model turn holding all of
 * them; shell and edit calls run one at a time, in order), each case in its own directory. Returns
 * what the CLI printed (stream-json: every tool result is in it).
 */
export async function runWithCairn(
  at: Layout,
  cases: readonly NamedCase[],
  mode: Mode,
  options: { deny: readonly string[]; extraArgs: readonly string[] },
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  let turn = reply();
  for (const c of cases) for (const call of c.calls) turn = turn.tool(...toolUse(at, c, call));
  const server = await startServer([turn, reply().text("done")]);
  const args = [
    "-p",
    "go",
    "--model",
    MODEL,
    "--output-format",
    "stream-json",
    "--disallowedTools",
    options.deny.join(","),
    ...(mode === "force" ? ["--force"] : []),
    ...options.extraArgs,
  ];
  const spawned = spawnCli(args, {
    cwd: at.ws,
    env: { ...serverEnv(server), HOME: at.home },
    timeoutMs: 120_000,
  });
  const { code } = await spawned.exited;
  return { ...spawned.out, code };
}

export function reset(at: Layout): void {
  rmSync(at.root, { recursive: true, force: true });
  mkdirSync(at.ws, { recursive: true });
}
