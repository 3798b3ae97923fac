import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { ready, skipped, startCairn } from "./cairn-terminal.js";

/** The todo list and running subagents in the live region (docs/interactive.md, "The screen"). */
describe(`activity in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "the todo list is shown while the turn runs, and stays in the conversation under the TodoWrite call",
    async () => {
      const todos = [
        { content: "Read the code", status: "completed", activeForm: "Reading the code" },
        { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
        { content: "Fix the build", status: "pending", activeForm: "Fixing the build" },
      ];
      const { t } = await startCairn(
        [
          reply().tool("TodoWrite", { todos }),
          reply().text("Working through the list now.").stall(2, 60_000),
        ],
        ["Plan the work"],
      );
      await t.waitFor(
        () => t.screen().some((row) => row.includes("◼ Running the tests")),
        "the live todo list",
      );
      const screen = t.screen().map((row) => row.trimEnd());
      const status = screen.findIndex((row) => row.startsWith("Working…") || row.startsWith("Thinking…"));
      expect(screen.slice(status + 1, status + 4)).toEqual([
        "  ☑ Read the code",
        "  ◼ Running the tests",
        "  ☐ Fix the build",
      ]);
      const all = t.all().map((row) => row.trimEnd());
      const call = all.findIndex((row) => row.startsWith("✓ Update the todo list"));
      expect(all.slice(call + 1, call + 4)).toEqual([
        "    ☑ Read the code",
        "    ◼ Running the tests",
        "    ☐ Fix the build",
      ]);
      t.type("\x1b");
      await t.waitFor((text) => text.includes("Interrupted."), "the interruption");
      await ready(t);
      // Once the turn is over, the live region no longer shows the list (the committed one stays).
      expect(t.screen().map((row) => row.trimEnd())).not.toContain("  ◼ Running the tests");
    },
  );

  test.skipIf(skipped !== "")(
    "a running subagent is shown under its Agent call with what it is doing and its tool calls",
    async () => {
      const { t } = await startCairn(
        [
          reply().tool("Agent", {
            description: "Survey the code",
            prompt: "Look around",
            subagent_type: "surveyor",
          }),
          reply().tool("Read", { file_path: "notes.txt" }),
          reply().text("Still looking.").stall(2, 60_000),
        ],
        ["Delegate"],
        {
          files: {
            "notes.txt": "some notes\n",
            // An agent file: the Agent tool is offered when there is an agent to delegate to.
            ".cairn/agents/surveyor.md":
              "---\nname: surveyor\ndescription: Surveys code.\n---\nSurvey the code.\n",
          },
        },
      );
      await t.waitFor(
        () => t.screen().some((row) => row.includes("⎿ surveyor: Survey the code · thinking · 1 tool call")),
        "the running subagent",
      );
      const screen = t.screen().map((row) => row.trimEnd());
      const subagent = screen.findIndex((row) => row.includes("⎿ surveyor: Survey the code"));
      // Under its Agent call's running line.
      expect(screen[subagent - 1]).toMatch(/^● /);
      t.type("\x1b");
      await t.waitFor((text) => text.includes("Interrupted."), "the interruption");
      await ready(t);
      expect(t.screen().some((row) => row.includes("⎿ surveyor"))).toBe(false);
    },
  );
});
