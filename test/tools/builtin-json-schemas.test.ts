import { describe, expect, it } from "vitest";
import { type AgentToolDeps, agentTool } from "../../src/agents/agent-tool.js";
import { BUILTIN_JSON_SCHEMAS } from "../../src/tools/builtin-json-schemas.js";
import { inputSchemaOf, toModelJsonSchema } from "../../src/tools/define.js";
import { builtinTools } from "../../src/tools/index.js";

// The model is sent the JSON Schemas computed ahead; the tools validate with their zod schemas.
// When this fails after a change to a tool's input: `npm run build && node scripts/tool-json-schemas.mjs`.
describe("the precomputed JSON Schemas of the built-in tools and the Agent tool", () => {
  it("are exactly what their zod schemas convert to, key order included", () => {
    const unused = () => {
      throw new Error("not called: only the tool's schema is looked at");
    };
    const deps: AgentToolDeps = {
      agents: new Map(),
      parent: unused,
      baseTools: unused,
      resolveModel: unused,
      systemPrompt: unused,
      transcriptPath: unused,
    };
    const tools = [...builtinTools(), agentTool(deps)];
    expect(Object.keys(BUILTIN_JSON_SCHEMAS)).toEqual(tools.map((tool) => tool.name));
    for (const tool of tools) {
      const schema = inputSchemaOf(tool);
      if (!schema) throw new Error(`${tool.name} has no zod schema`);
      // Compared as text: the request body the model gets must not change by a byte.
      expect(JSON.stringify(tool.jsonSchema)).toBe(JSON.stringify(toModelJsonSchema(schema)));
    }
  });
});
