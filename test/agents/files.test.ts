import { describe, expect, test } from "vitest";
import { loadAgentFiles } from "../../src/agents/files.js";
import { tempDir } from "../helpers/temp.js";

/** Agent files (docs/agents.md): what their frontmatter may say, and what makes one unusable. */
describe("agent files", () => {
  test("the three spellings of a tool list, model, readonly and maxTurns; the body is the prompt", async () => {
    const dir = tempDir("cairn-agents-", {
      "a.md":
        "---\nname: alpha\ndescription: First.\ntools: Read, Grep\nmodel: haiku\nmaxTurns: 3\n---\nBe alpha.\n",
      "b.md":
        "---\ndescription: 'Second: with a colon'\ntools: [Glob, LS]\nreadonly: true\n---\n\nBe beta.\n",
      "c.md":
        "---\nname: gamma\ndescription: >\n  Third, folded\n  over two lines.\ntools:\n  - Bash\n  - Read\n---\nBe gamma.\n",
      "notes.txt": "not an agent",
    });
    const { agents, warnings } = await loadAgentFiles([dir]);
    expect(warnings).toEqual([]);
    expect(agents.map(({ source: _, ...agent }) => agent)).toEqual([
      {
        name: "alpha",
        description: "First.",
        prompt: "Be alpha.",
        tools: ["Read", "Grep"],
        model: "haiku",
        maxTurns: 3,
      },
      {
        name: "b",
        description: "Second: with a colon",
        prompt: "Be beta.",
        tools: ["Glob", "LS"],
        readonly: true,
      },
      {
        name: "gamma",
        description: "Third, folded over two lines.",
        prompt: "Be gamma.",
        tools: ["Bash", "Read"],
      },
    ]);
  });

  test("a later folder wins for the same name; a file without a description is reported, not used", async () => {
    const user = tempDir("cairn-agents-user-", {
      "r.md": "---\nname: r\ndescription: User's.\n---\nUser.\n",
    });
    const project = tempDir("cairn-agents-project-", {
      "r.md": "---\nname: r\ndescription: Project's.\n---\nProject.\n",
      "bad.md": "---\nname: bad\n---\nNo description.\n",
      "worse.md": "---\nname: worse\ndescription: x\nmaxTurns: many\n---\n",
    });
    const { agents, warnings } = await loadAgentFiles([user, project, "/nonexistent/agents"]);
    expect(agents.map((agent) => [agent.name, agent.description])).toEqual([["r", "Project's."]]);
    expect(warnings).toEqual([
      expect.stringMatching(/bad\.md is not used: it has no description in its frontmatter\.$/),
      expect.stringMatching(/worse\.md is not used: maxTurns must be a positive whole number\.$/),
    ]);
  });
});
