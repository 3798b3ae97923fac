import { resolve } from "node:path";
import type { Tool } from "../tools/types.js";

/** Called with a file's absolute path before a tool changes it (SDK file checkpointing). */
export type BeforeFileChange = (file: string) => Promise<void>;

/**
 * Tools that call `before` with each file they declare they write, once the call has been allowed
 * and right before it runs (so a denied or invalid call saves nothing). Tools that declare no write
 * paths (Bash, MCP tools) are returned as they are: what they change cannot be known in advance.
 */
export function withFileCheckpoints(tools: Tool[], before: BeforeFileChange | undefined): Tool[] {
  if (!before) return tools;
  return tools.map((tool) => {
    const paths = tool.effects?.paths;
    if (!paths || tool.effects?.readOnly) return tool;
    return {
      ...tool,
      async execute(input, ctx) {
        const access = paths(input);
        if (!("uncheckable" in access)) {
          for (const entry of access)
            if (entry.access === "write") await before(resolve(ctx.cwd, entry.path));
        }
        return tool.execute(input, ctx);
      },
    };
  });
}
