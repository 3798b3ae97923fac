import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { ENTER, ready, skipped, startCairn } from "./cairn-terminal.js";

/**
 * The trust question (docs/interactive.md, "Trust"): asked only when the workspace brings hooks
 * or MCP servers that would run, before they can; the answer is remembered per workspace.
 */
const hooks = JSON.stringify({
  hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo ran >> hook-ran.txt" }] }] },
});

describe(`interactive workspace trust${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "a workspace with its own hooks is asked about once: trusted, its hook runs, and the next run does not ask",
    async () => {
      const home = tempDir("cairn-home-");
      const env = { CAIRN_HOME: home };
      const first = await startCairn([reply().text("First."), reply().text("Second.")], [], {
        env,
        files: { ".claude/settings.json": hooks },
      });
      await first.t.waitFor((text) => text.includes("Trust it?"), "the trust question");
      expect(first.t.all().join("\n")).toContain("hooks (.claude/settings.json)");
      expect(first.server.requests).toHaveLength(0);
      first.t.type(ENTER);
      await ready(first.t);
      first.t.type(`Hello${ENTER}`);
      await first.t.waitFor((text) => text.includes("First."), "the answer");
      expect(readFileSync(join(first.dir, "hook-ran.txt"), "utf8")).toBe("ran\n");
      const config = JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as {
        trustedWorkspaces: string[];
      };
      expect(config.trustedWorkspaces).toEqual([first.dir]);
      first.t.type("\x04");
      await first.t.exited;

      const second = await startCairn([], [], { env, dir: first.dir, server: first.server });
      await ready(second.t);
      second.t.type(`Again${ENTER}`);
      await second.t.waitFor((text) => text.includes("Second."), "the second answer");
      expect(second.t.all().join("\n")).not.toContain("Trust it?");
      expect(readFileSync(join(first.dir, "hook-ran.txt"), "utf8")).toBe("ran\nran\n");
    },
  );

  test.skipIf(skipped !== "")("a workspace without hooks or MCP servers is not asked anything", async () => {
    const { t, dir } = await startCairn([reply().text("Plain.")]);
    await ready(t);
    t.type(`Hi${ENTER}`);
    await t.waitFor((text) => text.includes("Plain."), "the answer");
    expect(t.all().join("\n")).not.toContain("Trust it?");
    expect(existsSync(join(dir, "hook-ran.txt"))).toBe(false);
  });
});
