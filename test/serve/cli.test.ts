import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REPO, runCli } from "../conformance/pm/helpers.js";

/** `cairn serve` and `cairn worker` on the command line: help and bad input need no database. */
describe("cairn serve on the command line", () => {
  test("cairn serve --help names its flags and environment", async () => {
    const run = await runCli({ rawArgs: ["serve", "--help"] });
    expect(run.code).toBe(0);
    for (const flag of [
      "--port",
      "--database-url",
      "DATABASE_URL",
      "--workers",
      "--rate-limit",
      "--key-concurrency",
      "--max-running",
      "--model-limits",
      "--workspaces",
      "--workspace-remote",
      "CAIRN_WORKSPACE_REMOTE",
      "create-key",
      "cairn worker",
    ])
      expect(run.stdout).toContain(flag);
    expect(run.stderr).toBe("");
  });

  test("without a database, or with a flag it does not know, serve and worker stop with one line and exit 2", async () => {
    for (const rawArgs of [
      ["serve"],
      ["worker"],
      ["serve", "--bogus"],
      ["serve", "--workers", "-1"],
      // The workers' setting, given to a serve that runs none: said, not ignored.
      ["serve", "--workspace-remote", "/srv/checkpoints.git"],
    ]) {
      const run = await runCli({
        rawArgs,
        env: { DATABASE_URL: rawArgs.length > 1 ? "postgresql://127.0.0.1:1/x" : "" },
      });
      expect(run.code, rawArgs.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  test("--model-limits that cairn cannot apply is refused before anything starts: one line, exit 2", async () => {
    for (const [value, message] of [
      ['{"anthropic": {"rpm": 5}}', /"anthropic" has rpm; a limit takes concurrency and requestsPerMinute/],
      ['{"anthropic": {"concurrency": 0}}', /concurrency must be a whole number of at least 1/],
      ['{"Anthropic Claude": {}}', /is not a provider or provider\/model/],
      ["/nonexistent/limits.json", /neither a JSON object nor a file/],
    ] as const)
      for (const command of ["worker", "serve"]) {
        const run = await runCli({
          rawArgs: [command, "--model-limits", value, "--workers", "1"].slice(0, command === "serve" ? 5 : 3),
          env: { DATABASE_URL: "postgresql://127.0.0.1:1/x" },
        });
        expect(run.code, `${command} ${value}`).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toMatch(message);
        expect(run.stderr.trim().split("\n")).toHaveLength(1);
      }
  });

  test("the CLI's bundle leaves DBOS and pg out: print mode neither parses nor loads them", () => {
    const bundle = readFileSync(join(REPO, "dist/cli/cli.cjs"), "latin1");
    // Strings of DBOS's system database and of pg's authentication, which a bundled copy would hold.
    expect(bundle).not.toContain("operation_outputs");
    expect(bundle).not.toContain("SCRAM-SHA-256");
  });
});
