import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { type ScriptedServer, type StepInput, startScriptedServer } from "../../../src/testing/index.js";
import { validLine } from "../../cli/schemas.js";
import { modelFreeEnv } from "../../helpers/env.js";
import { tempDir } from "../../helpers/temp.js";

/**
 * Runs the BUILT CLI (`node dist/cli/bin.cjs`, the package's bin) as a user would: a child process with piped stdio,
 * a temporary workspace as its working directory, and the scripted model server over real HTTP
 * (ANTHROPIC_BASE_URL). Every json / stream-json line it prints is checked against docs/schema/.
 */
export const REPO = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
/** The `cairn` bin as package.json names it (it imports dist/cli/main.js for everything but `--version`). */
export const CLI = join(REPO, "dist/cli/bin.cjs");
export const MODEL = "anthropic/claude-sonnet-5-5";

const servers: ScriptedServer[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

export async function startServer(steps: StepInput[], chunkSize?: number): Promise<ScriptedServer> {
  const server = await startScriptedServer({ steps, ...(chunkSize ? { chunkSize } : {}) });
  servers.push(server);
  return server;
}

/** A temporary directory (real path) holding `files`, removed after the test. */
export function workspace(files: Record<string, string> = {}): string {
  return tempDir("cairn-pm-", files);
}

/** The environment without model settings or real keys (CAIRN_HOME stays a temp dir), plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...modelFreeEnv(), ...extra };
}

export function serverEnv(server: ScriptedServer): NodeJS.ProcessEnv {
  return cleanEnv({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test" });
}

export type Spawned = {
  child: ChildProcess;
  /** Everything printed so far (live). */
  out: { stdout: string; stderr: string };
  /** Resolves with the exit; rejects when the process outlives `timeoutMs` (it is then killed). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * Spawns the CLI. `stdin`: a string is written and closed; "open" leaves the pipe open for ever
 * (an inherited stdin that never closes); "closed" closes it at once (default).
 */
export function spawnCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number },
): Spawned {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  const out = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    out.stdout += chunk;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    out.stderr += chunk;
  });
  child.stdin!.on("error", () => {}); // the CLI may exit without reading stdin
  const stdin = options.stdin ?? "closed";
  if (stdin === "closed") child.stdin!.end();
  else if (stdin !== "open") child.stdin!.end(stdin);
  const timeoutMs = options.timeoutMs ?? 20_000;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cairn ${args.join(" ")} did not exit within ${timeoutMs} ms\n${out.stderr}`));
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
  return { child, out, exited };
}

export type CliRun = {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout's lines, parsed and schema-checked (json / stream-json runs only). */
  events: Record<string, unknown>[];
  dir: string;
  server: ScriptedServer;
};

export type RunOptions = {
  steps?: StepInput[];
  chunkSize?: number;
  files?: Record<string, string>;
  /** Default: `-p <prompt> --model anthropic/claude-sonnet-5-5` precede these. */
  args?: string[];
  prompt?: string | null;
  stdin?: string;
  env?: Record<string, string>;
  /** Replace the whole argument list (no -p, no prompt, no --model added). */
  rawArgs?: string[];
};

/** One CLI run against a fresh scripted server and workspace. */
export async function runCli(options: RunOptions = {}): Promise<CliRun> {
  const server = await startServer(options.steps ?? [], options.chunkSize);
  const dir = workspace(options.files);
  const prompt = options.prompt === undefined ? "Do the task" : options.prompt;
  const args = options.rawArgs ?? [
    ...(prompt === null ? [] : ["-p", prompt]),
    "--model",
    MODEL,
    ...(options.args ?? []),
  ];
  const spawned = spawnCli(args, {
    cwd: dir,
    env: { ...serverEnv(server), ...options.env },
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
  });
  const { code, signal } = await spawned.exited;
  const { stdout, stderr } = spawned.out;
  const jsonOutput = /(^|\s)(json|stream-json)(\s|$)/.test(args.join(" "));
  const events = jsonOutput ? parseLines(stdout) : [];
  return { code, signal, stdout, stderr, events, dir, server };
}

/** Splits NDJSON output; every line must be one complete, schema-valid JSON object. */
export function parseLines(stdout: string): Record<string, unknown>[] {
  if (stdout === "") return [];
  if (!stdout.endsWith("\n"))
    throw new Error(`stdout does not end with a newline: ${JSON.stringify(stdout.slice(-80))}`);
  return stdout.slice(0, -1).split("\n").map(validLine);
}

/** `type/subtype/kind` labels of stream-json events, for sequence assertions. */
export function labels(events: Record<string, unknown>[]): string[] {
  return events.map((event) => {
    if (event.type === "tool_call") {
      const kind = Object.keys(event.tool_call as object)[0];
      return `tool_call/${event.subtype}/${kind}`;
    }
    return event.subtype ? `${event.type}/${event.subtype}` : String(event.type);
  });
}

/** The text of an assistant or user event. */
export function textOf(event: Record<string, unknown>): string {
  const message = event.message as { content: { text: string }[] };
  return message.content.map((block) => block.text).join("");
}

export function ofType(events: Record<string, unknown>[], type: string): Record<string, unknown>[] {
  return events.filter((event) => event.type === type);
}

/** Whether `script` (util-linux) can give the CLI a pseudo-terminal in this environment. */
export function hasScript(): boolean {
  return spawnSync("script", ["-qec", "true", "/dev/null"], { stdio: "ignore" }).status === 0;
}

/** Quotes one word for sh. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Runs a shell command line under `script`, so it gets a pseudo-terminal as stdin, stdout and
 * stderr (unless the command line redirects them). Resolves with what reached the terminal, the
 * terminal's \r\n turned back into \n, and the command line's exit code. Asynchronous on purpose:
 * the scripted model server lives in this process and must keep answering meanwhile.
 */
export async function runInTerminal(
  commandLine: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; terminal: string }> {
  const child = spawn("script", ["-qec", commandLine, "/dev/null"], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let terminal = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    terminal += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${commandLine} did not exit within 20 s`));
    }, 20_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve(status);
    });
  });
  return { code, terminal: terminal.replace(/\r\n/g, "\n") };
}

export function cliCommand(args: string[]): string {
  return [process.execPath, CLI, ...args].map(shellQuote).join(" ");
}
