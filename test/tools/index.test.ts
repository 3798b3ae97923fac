import { describe, expect, it } from "vitest";
import { builtinTools, childEnvironment } from "../../src/tools/index.js";

describe("builtinTools", () => {
  it("offers the built-in tools in order, with their declared effects and object schemas", () => {
    const tools = builtinTools();
    const declared = tools.map(({ name, effects }) => [
      name,
      effects?.kind,
      effects?.readOnly,
      effects?.network,
      ...(effects?.asksUser ? [effects.asksUser] : []),
    ]);
    expect(declared).toEqual([
      ["Read", "read", true, false],
      ["Write", "edit", false, false],
      ["Edit", "edit", false, false],
      ["Bash", "execute", false, true],
      ["Glob", "read", true, false],
      ["Grep", "read", true, false],
      ["LS", "read", true, false],
      ["TodoWrite", "other", true, false],
      ["BashOutput", "read", true, false],
      ["TaskStop", "other", false, false],
      ["NotebookEdit", "edit", false, false],
      ["AskUserQuestion", "other", true, false, "answer"],
      ["ExitPlanMode", "other", true, false, "exit-plan"],
    ]);
    // The pinned SDK's legacy names of TaskStop (LEGACY_TOOL_NAME_ALIASES) are accepted too.
    expect(tools.find((tool) => tool.name === "TaskStop")!.aliases).toEqual(["KillShell", "KillBash"]);
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(tool.jsonSchema.type).toBe("object");
    }
    expect(typeof childEnvironment).toBe("function");
  });

  it("uses the agent-SDK input names", () => {
    const properties = (name: string) =>
      Object.keys((builtinTools().find((tool) => tool.name === name)!.jsonSchema.properties ?? {}) as object);
    expect(properties("Read")).toEqual(["file_path", "offset", "limit"]);
    expect(properties("Write")).toEqual(["file_path", "content"]);
    expect(properties("Edit")).toEqual(["file_path", "old_string", "new_string", "replace_all"]);
    expect(properties("Bash")).toEqual(["command", "timeout", "description", "run_in_background"]);
    expect(properties("AskUserQuestion")).toEqual(["questions", "answers", "annotations", "metadata"]);
    expect(properties("ExitPlanMode")).toEqual(["plan"]);
    expect(properties("Glob")).toEqual(["pattern", "path"]);
    expect(properties("Grep")).toEqual([
      "pattern",
      "path",
      "glob",
      "type",
      "output_mode",
      "-i",
      "-n",
      "-A",
      "-B",
      "-C",
      "head_limit",
      "multiline",
    ]);
    expect(properties("LS")).toEqual(["path", "ignore"]);
    expect(properties("TodoWrite")).toEqual(["todos"]);
    expect(properties("BashOutput")).toEqual(["bash_id", "filter"]);
    expect(properties("TaskStop")).toEqual(["task_id", "shell_id"]);
    expect(properties("NotebookEdit")).toEqual([
      "notebook_path",
      "cell_id",
      "new_source",
      "cell_type",
      "edit_mode",
    ]);
  });
});
