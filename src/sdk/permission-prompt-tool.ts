import type { Tool } from "../tools/types.js";
import type { CanUseTool } from "./options.js";

/**
 * `permissionPromptToolName`: an MCP tool answers the permission questions, as with the reference
 * CLI's `--permission-prompt-tool`. It is called with `{ tool_name, input, tool_use_id }` and must
 * answer with text holding a `PermissionResult` as JSON (`{"behavior":"allow","updatedInput":{…}}` or
 * `{"behavior":"deny","message":"…"}`). A missing tool, a failing call or an unreadable answer is
 * a deny whose message says which.
 */
export function promptToolAsker(
  name: string,
  tools: () => readonly Tool[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): CanUseTool {
  return async (toolName, input, { signal, toolUseID }) => {
    const deny = (why: string) => ({
      behavior: "deny" as const,
      message: `Permission prompt tool ${name}: ${why}`,
    });
    const tool = tools().find((candidate) => candidate.name === name);
    if (!tool) return deny("no such tool (is its MCP server in mcpServers, and connected?)");
    const validation = tool.validate({ tool_name: toolName, input, tool_use_id: toolUseID });
    if (!validation.ok)
      return deny(`it does not take { tool_name, input, tool_use_id }: ${validation.message}`);
    const outcome = await tool.execute(validation.input, { cwd, env, signal, toolUseId: toolUseID });
    if (outcome.isError) return deny(`the call failed: ${outcome.content}`);
    try {
      const answer = JSON.parse(outcome.content) as { behavior?: unknown };
      if (answer?.behavior === "allow" || answer?.behavior === "deny") return answer as never;
    } catch {}
    return deny(`its answer is not a permission result as JSON: ${outcome.content.slice(0, 200)}`);
  };
}
