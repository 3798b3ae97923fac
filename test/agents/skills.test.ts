/**
 * Skills (docs/agents.md, "Skills"): progressive disclosure through the `Skill` tool, in the built
 * CLI and the SDK, against the scripted model server over HTTP.
 */
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { SDKSystemMessage } from "../../src/index.js";
import { reply, type ScriptedServer } from "../../src/testing/index.js";
import { ofType, runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { cleanUp, runQuery, workspace } from "../sdk/helpers.js";

afterEach(cleanUp);

const PDF_SKILL = `---
name: pdf-tools
description: Extract text and tables from PDF files
---
# PDF tools

BODY-MARKER: run scripts/extract.py on the file, then read reference.md.
`;

const requestText = (server: ScriptedServer, index: number) => JSON.stringify(server.requests[index]!.body);
const toolsOf = (server: ScriptedServer, index: number) =>
  (server.requests[index]!.body as { tools: { name: string; description: string }[] }).tools;

describe("skills", () => {
  test("the model sees only the description, then the body once it calls Skill (CLI)", async () => {
    const run = await runCli({
      files: {
        ".claude/skills/pdf/SKILL.md": PDF_SKILL,
        ".claude/skills/pdf/scripts/extract.py": "print('x')\n",
        ".claude/skills/pdf/reference.md": "ref\n",
      },
      prompt: "Summarise report.pdf",
      args: ["--output-format", "stream-json"],
      steps: [reply().tool("Skill", { skill: "pdf-tools" }), reply().text("Summarised.")],
    });
    expect(run.code).toBe(0);
    const skill = toolsOf(run.server, 0).find((tool) => tool.name === "Skill");
    expect(skill?.description).toContain("- pdf-tools: Extract text and tables from PDF files");
    expect(requestText(run.server, 0)).not.toContain("BODY-MARKER");
    const second = requestText(run.server, 1);
    expect(second).toContain("BODY-MARKER");
    expect(second).toContain(`Base directory for this skill: ${join(run.dir, ".claude/skills/pdf")}`);
    expect(second).toContain("scripts/extract.py");
    const [init] = ofType(run.events, "system");
    expect(init?.skills).toEqual(["pdf-tools"]);
    expect(init?.slash_commands).toEqual(["compact", "pdf-tools"]);
  });

  test("a user-level skill's folder may be read, though it is outside the workspace (CLI)", async () => {
    const home = tempDir("cairn-user-", {
      "claude/skills/notes/SKILL.md": "---\ndescription: House style\n---\nRead style.md first.\n",
      "claude/skills/notes/style.md": "STYLE-MARKER: short sentences.\n",
    });
    const style = join(home, "claude/skills/notes/style.md");
    const run = await runCli({
      env: { CAIRN_HOME: join(home, "cairn"), CLAUDE_CONFIG_DIR: join(home, "claude") },
      prompt: "Write the summary",
      steps: [
        reply().tool("Skill", { skill: "notes" }),
        reply().tool("Read", { file_path: style }),
        reply().tool("Read", { file_path: join(home, "claude/settings.json") }),
        reply().text("ok"),
      ],
    });
    expect(run.code).toBe(0);
    expect(requestText(run.server, 2)).toContain("STYLE-MARKER");
    // Only the skill's folder: the rest of the user's directory stays outside.
    expect(requestText(run.server, 3)).toMatch(/outside the workspace/);
  });

  test("the SDK's skills option picks the skills; [] leaves no Skill tool", async () => {
    const files = {
      ".claude/skills/pdf/SKILL.md": PDF_SKILL,
      ".cairn/skills/charts/SKILL.md": "---\ndescription: Draw charts\n---\nUse vega.\n",
    };
    const cwd = workspace(files);
    const only = await runQuery([reply().text("ok")], { cwd, skills: ["charts"] });
    const init = only.messages[0] as SDKSystemMessage;
    expect(init.skills).toEqual(["charts"]);
    const description = toolsOf(only.server, 0).find((tool) => tool.name === "Skill")?.description ?? "";
    expect(description).toContain("- charts: Draw charts");
    expect(description).not.toContain("pdf-tools");

    const none = await runQuery([reply().text("ok")], { cwd, skills: [] });
    expect((none.messages[0] as SDKSystemMessage).skills).toEqual([]);
    expect(toolsOf(none.server, 0).map((tool) => tool.name)).not.toContain("Skill");

    const all = await runQuery([reply().text("ok")], { cwd });
    expect((all.messages[0] as SDKSystemMessage).skills).toEqual(["charts", "pdf-tools"]);
  });

  test("an explicit tools list offers Skill only when it names it", async () => {
    const cwd = workspace({ ".claude/skills/pdf/SKILL.md": PDF_SKILL });
    const without = await runQuery([reply().text("ok")], { cwd, tools: ["Read"] });
    expect(toolsOf(without.server, 0).map((tool) => tool.name)).toEqual(["Read"]);
    const named = await runQuery([reply().text("ok")], { cwd, tools: ["Read", "Skill"] });
    expect(toolsOf(named.server, 0).map((tool) => tool.name)).toEqual(["Read", "Skill"]);
  });

  test("/skill-name invokes a skill directly, with its arguments", async () => {
    const cwd = workspace({ ".claude/skills/pdf/SKILL.md": PDF_SKILL });
    const { server } = await runQuery([reply().text("ok")], { cwd }, "/pdf-tools report.pdf");
    const prompt = requestText(server, 0);
    expect(prompt).toContain("BODY-MARKER");
    expect(prompt).toContain("ARGUMENTS: report.pdf");
  });
});
