// Run by scripts/post-build.mjs: writes the CLI's V8 code cache (src/cli/bin.cts) into
// dist/cli/.code-cache/ with one run like a user's, so that the first real run already starts from
// it and the cache holds what a run compiles, not just what the first command happened to need (a
// `--help` first would leave a run's code out of it). The run reads a file, writes one and answers,
// against the project's scripted model server over HTTP on 127.0.0.1; it doubles as a smoke test of
// the bundle. Its home and workspace are temporary, so no user configuration (hooks!) takes part.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const { startScriptedServer, reply } = await import(join(root, "dist/testing/index.js"));
const scratch = mkdtempSync(join(tmpdir(), "cairn-prime-"));
const server = await startScriptedServer({
  steps: [
    reply().text("Reading.").tool("Read", { file_path: "notes.txt" }),
    reply().text("Writing.").tool("Write", { file_path: "summary.txt", content: "A summary.\n" }),
    reply().text("Done."),
  ],
});
try {
  writeFileSync(join(scratch, "notes.txt"), "Some notes.\n");
  rmSync(join(root, "dist/cli/.code-cache"), { recursive: true, force: true });
  // Asynchronously: the server answers from this process.
  const run = await promisify(execFile)(
    process.execPath,
    [join(root, "dist/cli/bin.cjs"), "-p", "Summarise notes.txt", "--output-format", "stream-json"],
    {
      cwd: scratch,
      timeout: 60_000,
      // Only what the run needs: no NODE_OPTIONS (a cache is per set of Node options), no
      // CAIRN_CODE_CACHE (this cache belongs next to the bundle).
      env: {
        PATH: process.env.PATH,
        HOME: scratch,
        CAIRN_HOME: join(scratch, ".cairn"),
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "prime",
      },
    },
  );
  const result = run.stdout.trim().split("\n").at(-1) ?? "";
  if (!result.includes('"subtype":"success"') || !result.includes('"num_turns":3'))
    throw new Error(`the priming run failed: ${run.stderr || run.stdout}`);
  if (readFileSync(join(scratch, "summary.txt"), "utf8") !== "A summary.\n")
    throw new Error("the priming run did not write summary.txt");
  const written = readdirSync(join(root, "dist/cli/.code-cache"));
  if (written.length !== 1) throw new Error(`expected one code cache, found ${written.join(", ") || "none"}`);
} finally {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
}
