import { describe, expect, test } from "vitest";
import { runCli } from "../conformance/pm/helpers.js";

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
      "create-key",
      "cairn worker",
    ])
      expect(run.stdout).toContain(flag);
    expect(run.stderr).toBe("");
  });

  test("without a database, or with a flag it does not know, serve and worker stop with one line and exit 2", async () => {
    for (const rawArgs of [["serve"], ["worker"], ["serve", "--bogus"], ["serve", "--workers", "-1"]]) {
      const run = await runCli({
        rawArgs,
        env: { DATABASE_URL: rawArgs.length > 1 ? "postgresql://127.0.0.1:1/x" : "" },
      });
      expect(run.code, rawArgs.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
