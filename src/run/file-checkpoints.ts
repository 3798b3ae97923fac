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
        const access = paths(input, ctx.cwd);
        const files = "uncheckable" in access ? [] : access.filter((entry) => entry.access === "write");
        for (const entry of files) {
          const file = resolve(ctx.cwd, entry.path);
          try {
            await before(file);
          } catch (error) {
            // A change that could not be rewound is not made: the file stays as it is.
            return {
              content: `The file checkpoint of ${file} could not be saved, so it was not changed: ${(error as Error).message}`,
              isError: true,
              errorKind: "failed",
              durationMs: 0,
            };
          }
        }
        return tool.execute(input, ctx);
      },
    };
  });
}
