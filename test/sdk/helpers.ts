import { spawn } from "node:child_process";
import { existsSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Options,
  query,
  type SDKMessage,
  type SDKResultMessage,
  type SDKSystemMessage,
  type SDKUserMessage,
} from "../../src/index.js";
import { type ScriptedServer, type StepInput, startScriptedServer } from "../../src/testing/index.js";
import { modelFreeEnv } from "../helpers/env.js";
import { tempDir } from "../helpers/temp.js";

export const REPO = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** Servers made by a test, closed by `cleanUp()` (call it in afterEach); temp dirs go by themselves. */
const servers: ScriptedServer[] = [];

export async function startServer(
  steps: StepInput[],
  options: { chunkSize?: number } = {},
): Promise<ScriptedServer> {
  const server = await startScriptedServer({ steps, ...options });
  servers.push(server);
  return server;
}

/** A temp directory holding `files` (path → content), removed after the test. */
export function workspace(files: Record<string, string> = {}): string {
  return tempDir("cairn-sdk-", files);
}

export async function cleanUp(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  runner = undefined;
  home = undefined;
}

let home: string | undefined;

/**
 * This test's `$CAIRN_HOME` (transcripts, user config): a temp dir, the same for every call within a
 * test, removed by `cleanUp()`. Never the user's ~/.cairn.
 */
export function cairnHome(): string {
  if (!home) {
    home = tempDir("cairn-sdk-home-");
  }
  return home;
}

/**
 * The process environment without anything that could pick another model or leak a real key, with
 * `CAIRN_HOME` pointing at this test's own temp home.
 */
export function baseEnv(): NodeJS.ProcessEnv {
  return { ...modelFreeEnv(), CAIRN_HOME: cairnHome() };
}

/** "Only env set": what a program needs to reach the scripted server with the default model. */
export function envFor(server: ScriptedServer): NodeJS.ProcessEnv {
  return { ...baseEnv(), ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test" };
}

export async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

/** One query against its own scripted server, on `options.cwd` or else a fresh empty workspace. */
export async function runQuery(steps: StepInput[], options: Options = {}, prompt = "Go") {
  const server = await startServer(steps);
  const cwd = options.cwd ?? workspace();
  const messages = await collect(query({ prompt, options: { cwd, env: envFor(server), ...options } }));
  return { server, cwd, messages };
}

/** The last message, which must be the result. */
export function result(messages: SDKMessage[]): SDKResultMessage {
  const last = messages.at(-1);
  if (last?.type !== "result") throw new Error(`last message is ${last?.type}, not result`);
  return last;
}

/** The first message, which must be system/init. */
export function init(messages: SDKMessage[]): SDKSystemMessage {
  const first = messages[0];
  if (first?.type !== "system" || first.subtype !== "init") throw new Error("no system/init first");
  return first;
}

export function users(messages: SDKMessage[]): SDKUserMessage[] {
  return messages.filter((message): message is SDKUserMessage => message.type === "user");
}

/** The text the stream events carried: every text_delta, appended. */
export function textFromDeltas(messages: SDKMessage[]): string {
  return messages
    .flatMap((m) =>
      m.type === "stream_event" &&
      m.event.type === "content_block_delta" &&
      m.event.delta.type === "text_delta"
        ? [m.event.delta.text]
        : [],
    )
    .join("");
}

/** A short label per message, for order assertions: `system/init`, `stream/content_block_delta`, … */
export function labels(messages: SDKMessage[]): string[] {
  return messages.map((message) => {
    switch (message.type) {
      case "system":
        return `system/${message.subtype}`;
      case "stream_event":
        return `stream/${message.event.type}`;
      case "assistant":
        return `assistant/${message.message.content[0]?.type}`;
      case "user": {
        const content = message.message.content;
        return `user/${Array.isArray(content) ? content[0]?.type : "text"}`;
      }
      case "result":
        return `result/${message.subtype}`;
      default:
        return message.type;
    }
  });
}

/** The messages with per-run values (uuid, timings) replaced, for comparing two runs. */
export function normalized(messages: SDKMessage[]): unknown[] {
  return JSON.parse(
    JSON.stringify(messages, (key, value) => {
      if (key === "uuid" || key === "session_id") return "<id>";
      if (key === "duration_ms" || key === "duration_api_ms" || key === "executionTime") return 0;
      if (key === "id" && typeof value === "string" && value.startsWith("msg_")) return "<msg>";
      return value;
    }),
  );
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------------------------------------------
// Running example programs against the built package
// ---------------------------------------------------------------------------------------------------

let runner: string | undefined;

/**
 * A directory outside the repository where `import … from "cairn"` resolves to this package as an
 * installed dependency would (node_modules/cairn → the repository; its exports point into dist/).
 */
async function exampleRunnerDir(): Promise<string> {
  if (!existsSync(join(REPO, "dist/index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (`npm test` does it).");
  }
  const built = statSync(join(REPO, "dist/sdk/query.js")).mtimeMs;
  for (const source of ["src/sdk/query.ts", "src/sdk/project.ts", "src/sdk/options.ts", "src/index.ts"]) {
    if (statSync(join(REPO, source)).mtimeMs > built + 1000) {
      throw new Error(`dist/ is older than ${source}: run \`npm run build\` first (\`npm test\` does it).`);
    }
  }
  if (!runner) {
    const dir = tempDir("cairn-examples-");
    await mkdir(join(dir, "node_modules"));
    symlinkSync(REPO, join(dir, "node_modules/cairn"), "dir");
    // Programs from the docs import zod for their tool schemas, as an app that depends on it would.
    symlinkSync(join(REPO, "node_modules/zod"), join(dir, "node_modules/zod"), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
    runner = dir;
  }
  return runner;
}

/**
 * Puts a program where "cairn" resolves: TypeScript is compiled first (type-stripping only, as tsx
 * or a bundler would: an import used only as a type, like the docs' `import { query, HookCallback }`,
 * is dropped), JavaScript is copied as is.
 */
async function compileExample(file: string): Promise<string> {
  const source = await readFile(file, "utf8");
  let code = source;
  if (file.endsWith(".ts")) {
    const ts = (await import("typescript")).default;
    code = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
      },
      fileName: file,
    }).outputText;
  }
  const dir = await exampleRunnerDir();
  const out = join(dir, `${basename(file).replace(/\.[mc]?[jt]s$/, "")}-${process.pid}-${Date.now()}.mjs`);
  writeFileSync(out, code);
  return out;
}

export type ProgramRun = {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
};

/**
 * Runs a TypeScript program that imports from "cairn" as a separate Node process with the given
 * environment and working directory. Resolves when the process exits by itself; a process still
 * alive after `timeoutMs` is killed and reported as such (something kept it alive).
 */
export async function runProgram(
  file: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; args?: string[] },
): Promise<ProgramRun> {
  const compiled = await compileExample(file);
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [compiled, ...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n[test] still running after ${options.timeoutMs ?? 15_000} ms: killed`;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 15_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export function examplePath(name: string): string {
  return join(REPO, "examples/sdk", name);
}

export function fixturePath(name: string): string {
  return join(REPO, "test/sdk/fixtures", name);
}

/**
 * A request body as the model reads it: Anthropic prompt-caching markers removed, a system prompt
 * sent as blocks joined back into one string, and a message whose content is a single text block
 * given as that text. Lets tests assert what was said, independent of caching.
 */
export function semanticBody<T>(raw: unknown): T {
  const body = structuredClone(raw) as {
    system?: string | { type: string; text: string }[];
    messages?: { role: string; content: unknown }[];
  };
  if (Array.isArray(body.system)) body.system = body.system.map((block) => block.text).join("");
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    const blocks = (message.content as Record<string, unknown>[]).map(
      ({ cache_control: _, ...rest }) => rest,
    );
    message.content =
      blocks.length === 1 && blocks[0]!.type === "text" && message.role === "user" ? blocks[0]!.text : blocks;
  }
  return body as T;
}

/**
 * `files` compiled as a program's author compiles them: strict, ESM, `"cairn"` resolved to the
 * published declarations (dist/index.d.ts), or to other `declarations` (a path from the repository's
 * root). Resolves the compiler too, to read the diagnostics.
 */
export async function compileAgainstDeclarations(files: string[], declarations = "./dist/index.d.ts") {
  const ts = (await import("typescript")).default;
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    skipLibCheck: true,
    baseUrl: REPO,
    paths: { cairn: [declarations] },
  });
  return { ts, diagnostics: ts.getPreEmitDiagnostics(program) };
}
