import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import {
  cleanEnv,
  MODEL,
  REPO,
  serverEnv,
  spawnCli,
  startServer,
  workspace,
} from "../conformance/pm/helpers.js";

async function cli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}) {
  const run = spawnCli(args, {
    cwd: options.cwd ?? workspace(),
    env: options.env ?? cleanEnv(),
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
  });
  const { code } = await run.exited;
  return { code, ...run.out };
}

describe("cairn report on the command line (docs/report.md)", () => {
  test("writes the page of a session found by its id to stdout; the same from its transcript on stdin, and through the SDK's renderReport", async () => {
    const server = await startServer([reply().text("Done here.")]);
    const dir = workspace();
    const env = serverEnv(server);
    const run = await cli(["-p", "Say done", "--model", MODEL, "--output-format", "json"], { cwd: dir, env });
    const id = String(JSON.parse(run.stdout).session_id);
    const page = await cli(["report", id], { cwd: dir, env });
    expect(page.stderr).toBe("");
    expect(page.code).toBe(0);
    expect(page.stdout).toMatch(/^<!doctype html>/);
    expect(page.stdout).toContain('<pre class="answer" id="answer">Done here.</pre>');
    // No reference to anything outside the page.
    expect(page.stdout).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    const sessions = join(String(env.CAIRN_HOME), "sessions");
    const [folder] = readdirSync(sessions);
    const transcript = readFileSync(join(sessions, String(folder), `${id}.jsonl`), "utf8");
    const piped = await cli(["report", "-"], { cwd: dir, env, stdin: transcript });
    expect(piped.stderr).toBe("");
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('<pre class="answer" id="answer">Done here.</pre>');

    // The SDK's renderReport, from the built package as a program imports it: by id and from text.
    const sdk = (await import(
      pathToFileURL(join(REPO, "dist/index.js")).href
    )) as typeof import("../../src/index.js");
    const byId = await sdk.renderReport({ sessionId: id, cwd: dir, env }, { redact: true });
    expect(byId).toContain('<pre class="answer" id="answer">Done here.</pre>');
    expect(byId).toContain("File contents and command output were left out (--redact).");
    const fromText = await sdk.renderReport({ jsonl: transcript });
    expect(fromText).toContain('<pre class="prompt" id="prompt">Say done</pre>');
    expect(fromText).toContain('<pre class="answer" id="answer">Done here.</pre>');
  }, 60_000);

  test("bad input: one line on stderr, nothing on stdout, exit 2 for usage and 1 for a session that is not there", async () => {
    const missing = await cli(["report", "0b1d5e55-0000-4000-8000-000000000001"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/^cairn: session 0b1d5e55-0000-4000-8000-000000000001 not found[^\n]*\n$/);
    const none = await cli(["report"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      "cairn: report: name a session id, a transcript file or - (stdin); see cairn report --help\n",
    );
    const flag = await cli(["report", "x.jsonl", "--max-text-chars", "ten"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "cairn: report: --max-text-chars takes a whole number of at least 100 (got ten)\n",
    );
    const budget = await cli(["report", "x.jsonl", "--max-output-chars", "5"]);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toBe(
      "cairn: report: --max-output-chars takes a whole number of at least 1000 (got 5)\n",
    );
    const notTranscript = await cli(["report", "-"], { stdin: '{"type":"user"}\n' });
    expect(notTranscript.code).toBe(1);
    expect(notTranscript.stdout).toBe("");
    expect(notTranscript.stderr).toBe("cairn: the transcript is not a cairn transcript (no header line)\n");
  }, 60_000);

  test("--report to a place that cannot be written: the answer is printed, stderr says why, exit 1", async () => {
    const server = await startServer([reply().text("All good.")]);
    const dir = workspace();
    const run = await cli(["-p", "Check", "--model", MODEL, "--report", join(dir, "missing-dir", "r.html")], {
      cwd: dir,
      env: serverEnv(server),
    });
    expect(run.stdout).toBe("All good.\n");
    expect(run.stderr).toMatch(/^cairn: --report \S+missing-dir\/r\.html: cannot write the report [^\n]+\n$/);
    expect(run.code).toBe(1);
  }, 60_000);

  test("cairn report --help says how to use it", async () => {
    const help = await cli(["report", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: cairn report <session-id \| transcript\.jsonl \| -> \[options\]/);
    expect(help.stdout).toContain("--redact");
  }, 30_000);
});
