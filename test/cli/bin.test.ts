import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CLI, REPO, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";

/** The `cairn` bin package.json names: a CommonJS file that answers --version and imports the CLI for the rest. */
describe("the cairn bin", () => {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    version: string;
    bin: { cairn: string };
  };

  test("is the file the tests run, and --version prints the package's version", async () => {
    expect(join(REPO, pkg.bin.cairn)).toBe(CLI);
    const cli = spawnCli(["--version"], { cwd: workspace(), env: process.env });
    expect((await cli.exited).code).toBe(0);
    expect(cli.out.stdout).toBe(`${pkg.version}\n`);
    expect(cli.out.stderr).toBe("");
  });

  test("hands a prompt to the CLI, whose exit code it keeps", async () => {
    const server = await startServer([reply().text("Through the bin.")]);
    const ok = spawnCli(["-p", "hi"], { cwd: workspace(), env: serverEnv(server) });
    expect((await ok.exited).code).toBe(0);
    expect(ok.out.stdout).toBe("Through the bin.\n");
    const bad = spawnCli(["-p", "hi", "--output-format", "yaml"], {
      cwd: workspace(),
      env: serverEnv(server),
    });
    expect((await bad.exited).code).toBe(2);
    expect(bad.out.stdout).toBe("");
  });
});
