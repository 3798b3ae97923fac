import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { FIXTURE, mcpConfig, stdioServer } from "../mcp/helpers.js";
import { needsSandbox, sandboxUnavailable } from "./sandbox-helpers.js";

/**
 * Code from the repository runs under the sandbox too: the workspace's own command hooks and its own
 * MCP servers (both run only when trusted / approved). Each case has its positive control: the same
 * run with `--sandbox disabled` does write outside the workspace.
 */
describe.skipIf(sandboxUnavailable !== undefined)(
  `the workspace's own code under the sandbox${needsSandbox}`,
  () => {
    test("a project command hook cannot write outside the workspace", async () => {
      for (const mode of ["enabled", "disabled"] as const) {
        const outside = tempDir("cairn-outside-");
        const marker = join(outside, "hook-was-here");
        const hooks = {
          hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] },
        };
        const run = await runCli({
          files: { ".claude/settings.json": JSON.stringify(hooks) },
          steps: [reply().text("Hi.")],
          args: ["--output-format", "json", "--trust", "--sandbox", mode],
        });
        expect(run.code).toBe(0);
        expect(existsSync(marker)).toBe(mode === "disabled");
      }
    });

    test("a project MCP server cannot write outside the workspace; one from --mcp-config (the user's) can", async () => {
      const cases = [
        { level: "project", mode: "enabled", writes: false },
        { level: "project", mode: "disabled", writes: true },
        { level: "flag", mode: "enabled", writes: true },
      ] as const;
      for (const { level, mode, writes } of cases) {
        const outside = tempDir("cairn-outside-");
        const target = join(outside, "server-was-here");
        const servers = mcpConfig({ fixture: stdioServer(FIXTURE) });
        const run = await runCli({
          ...(level === "project" ? { files: { ".mcp.json": servers } } : {}),
          steps: [
            reply().tool("mcp__fixture__write_file", { path: target, text: "x" }),
            reply().text("Done."),
          ],
          args: [
            "--output-format",
            "json",
            "--sandbox",
            mode,
            "--allowedTools",
            "mcp__fixture",
            ...(level === "project" ? ["--approve-mcps"] : ["--mcp-config", servers]),
          ],
        });
        expect(run.code).toBe(0);
        expect(existsSync(target)).toBe(writes);
      }
    });
  },
);
