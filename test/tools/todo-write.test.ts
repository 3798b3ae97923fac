import { describe, expect, it } from "vitest";
import { todoWriteTool } from "../../src/tools/todo-write.js";
import { context } from "./helpers.js";

describe("TodoWrite", () => {
  it("returns the list it was given", async () => {
    const todos = [
      { content: "Run the tests", status: "in_progress", activeForm: "Running the tests", id: "1" },
      { content: "Fix the bug", status: "pending", activeForm: "Fixing the bug" },
    ];
    const out = await todoWriteTool.execute({ todos }, context("/"));
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^Todos have been modified successfully/);
    expect(out.data).toEqual({ todos });
  });

  it("rejects an unknown status and a missing activeForm", async () => {
    const badStatus = await todoWriteTool.execute(
      { todos: [{ content: "x", status: "done", activeForm: "Doing x" }] },
      context("/"),
    );
    expect(badStatus).toMatchObject({ isError: true, errorKind: "invalid_input" });
    expect(badStatus.content).toContain("`todos.0.status`");
    const noForm = await todoWriteTool.execute(
      { todos: [{ content: "x", status: "pending" }] },
      context("/"),
    );
    expect(noForm.content).toContain("`todos.0.activeForm`");
  });
});
