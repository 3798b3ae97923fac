import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { FIXTURE, mcpConfig, stdioServer } from "../mcp/helpers.js";
import { DOWN, ENTER, ready, skipped, startCairn, userTexts } from "./cairn-terminal.js";

/**
 * The `/` commands the other files leave out (docs/interactive.md, "Commands"), and the permission
 * question of an MCP tool (docs/interactive.md, "Permission questions"), as a user sees them.
 */
const all = (t: { all(): string[] }) => t.all().map((row) => row.trimEnd());

describe(`interactive: /permissions, /mcp, /init, /quit, /copy, MCP questions${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "/permissions lists the rules in effect with their files; a project's allow rule (not applied) is not among them",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
      writeFileSync(join(home, "config.json"), JSON.stringify({ permissions: { allow: ["Read(src/**)"] } }));
      const { t, dir } = await startCairn([], [], {
        env: { CAIRN_HOME: home },
        files: {
          ".cairn/config.json": JSON.stringify({
            permissions: { deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"], allow: ["Bash(curl:*)"] },
          }),
        },
      });
      await ready(t);
      t.type(`/permissions${ENTER}`);
      await t.waitFor((text) => text.includes("Permission rules:"), "the rules");
      const rows = all(t);
      const at = rows.indexOf("  Permission rules:");
      const listed = rows.slice(at + 1, at + 4).join("\n");
      expect(listed).toContain("deny Bash(rm:*)");
      expect(listed).toContain("ask Bash(git push:*)");
      expect(listed).toContain("allow Read(src/**)");
      expect(listed).toContain(join(dir, ".cairn", "config.json"));
      expect(listed).toContain(join(home, "config.json"));
      expect(rows.join("\n")).not.toContain("Bash(curl:*)");
    },
  );

  test.skipIf(skipped !== "")(
    "/permissions lists the flags' rules and a rule allowed for the session by an answer, each with where it comes from",
    async () => {
      const { t } = await startCairn(
        [reply().tool("Bash", { command: "touch made.txt" }), reply().text("Listed.")],
        ["List it", "--allowedTools", "Read", "--disallowedTools", "Bash(rm:*)"],
      );
      await t.waitFor(
        (text) => text.includes("Allow Bash?") || /\ba\s+Yes, and allow/.test(text),
        "the question",
      );
      t.type("a");
      await t.waitFor((text) => text.includes("Listed."), "the answer");
      await ready(t);
      t.type(`/permissions${ENTER}`);
      await t.waitFor((text) => text.includes("Permission rules:"), "the rules");
      const text = all(t).join("\n");
      expect(text).toContain("deny Bash(rm:*)  (--allowedTools/--disallowedTools)");
      expect(text).toContain("allow Read  (--allowedTools/--disallowedTools)");
      expect(text).toMatch(/allow Bash\(touch[^)]*\) {2}\(answered in this session\)/);
    },
  );

  test.skipIf(skipped !== "")("/permissions with no rules says so, with the mode", async () => {
    const { t } = await startCairn([], ["--permission-mode", "acceptEdits"]);
    await ready(t);
    t.type(`/permissions${ENTER}`);
    await t.waitFor((text) => text.includes("No permission rules"), "the answer");
    expect(all(t).join("\n")).toContain("No permission rules; mode acceptEdits.");
  });

  test.skipIf(skipped !== "")(
    "/mcp lists each MCP server with its state and tool count; one that failed says why",
    async () => {
      const config = mcpConfig({
        fixture: stdioServer(FIXTURE),
        broken: { command: "/nonexistent/cairn-no-such-server" },
      });
      const { t } = await startCairn([], ["--mcp-config", config]);
      await ready(t);
      t.type(`/mcp${ENTER}`);
      await t.waitFor((text) => text.includes("MCP servers:"), "the list");
      const text = all(t).join("\n");
      expect(text).toContain("  fixture: connected · 6 tools");
      expect(text).toMatch(/ {2}broken: failed \(.*\) · 0 tools/);
    },
  );

  test.skipIf(skipped !== "")("/mcp without servers says none are configured", async () => {
    const { t } = await startCairn([]);
    await ready(t);
    t.type(`/mcp${ENTER}`);
    await t.waitFor((text) => text.includes("No MCP servers are configured."), "the answer");
  });

  test.skipIf(skipped !== "")(
    "/init sends the AGENTS.md request to the model, shown as /init; the answer follows",
    async () => {
      const { t, server } = await startCairn([reply().text("I will write AGENTS.md.")]);
      await ready(t);
      t.type(`/init${ENTER}`);
      await t.waitFor((text) => text.includes("I will write AGENTS.md."), "the answer");
      const sent = userTexts(server.requests[0]!.body).join("\n");
      expect(sent).toContain("create an AGENTS.md file in its root");
      expect(all(t)).toContain("› /init");
      // The long request is not printed as the prompt.
      expect(all(t).join("\n")).not.toContain("create an AGENTS.md file in its root");
    },
  );

  test.skipIf(skipped !== "")("/quit leaves as /exit does: exit 0, live region erased", async () => {
    const { t } = await startCairn([]);
    await ready(t);
    t.type(`/quit${ENTER}`);
    expect((await t.exited).exitCode).toBe(0);
    expect(all(t).join("\n")).not.toContain("(shift+tab)");
    const output = t.output();
    expect(output.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(output.lastIndexOf("\x1b[?2004h"));
  });

  test.skipIf(skipped !== "")(
    "/copy of the second of two code blocks puts exactly that block's lines in the OSC 52 payload",
    async () => {
      const answer =
        "First:\n\n```sh\nnpm ci\n```\n\nThen:\n\n```ts\nconst a = 1;\nconsole.log(a);\n```\n\nDone.\n";
      const { t } = await startCairn([reply().text(answer)]);
      await ready(t);
      t.type(`Show me${ENTER}`);
      await t.waitFor((text) => text.includes("Done."), "the answer");
      await ready(t);
      t.type(`/copy${ENTER}`);
      await t.waitFor((text) => text.includes("Copy what?"), "the choice");
      const screen = t.screen().join("\n");
      expect(screen).toContain("code block 1, 1 lines");
      expect(screen).toContain("code block 2, 2 lines");
      t.type(DOWN);
      t.type(DOWN);
      t.type(DOWN);
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Copied 2 lines"), "the copy");
      const payloads = [...t.output().matchAll(/\x1b\]52;c;([A-Za-z0-9+/=]*)\x07/g)].map((m) =>
        Buffer.from(m[1]!, "base64").toString("utf8"),
      );
      expect(payloads).toEqual(["const a = 1;\nconsole.log(a);"]);
    },
  );

  test.skipIf(skipped !== "")(
    "a permission question for an MCP tool shows its server, tool and arguments; y runs it",
    async () => {
      const config = mcpConfig({ fixture: stdioServer(FIXTURE) });
      const { t, server } = await startCairn(
        [reply().tool("mcp__fixture__write_note", { text: "remember the milk" }), reply().text("Noted.")],
        ["Take a note", "--mcp-config", config],
      );
      await t.waitFor((text) => text.includes("Allow mcp__fixture__write_note?"), "the question");
      const rows = all(t);
      const at = rows.indexOf("? mcp__fixture__write_note");
      expect(rows.slice(at + 1, at + 3)).toEqual([
        "  MCP tool write_note of the server fixture, with 1 argument:",
        '    text: "remember the milk"',
      ]);
      t.type("y");
      await t.waitFor((text) => text.includes("Noted."), "the answer");
      expect(JSON.stringify(server.requests[1]!.body)).toContain("wrote remember the milk");
    },
  );
});
