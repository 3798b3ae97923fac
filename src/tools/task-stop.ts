import * as z from "zod";
import { endNote, unknownShell } from "./bash-output.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";

/**
 * The pinned SDK names this tool TaskStop (sdk-tools.d.ts `TaskStopInput`), and lists KillShell and
 * KillBash as its legacy names (`LEGACY_TOOL_NAME_ALIASES`): calls and rules may use either.
 */
export const TASK_STOP_ALIASES = ["KillShell", "KillBash"] as const;

const input = () =>
  z
    .object({
      task_id: z.string().min(1).optional().describe("The ID of the background shell to stop."),
      shell_id: z.string().min(1).optional().describe("Deprecated: use task_id instead."),
    })
    .refine((args) => args.task_id !== undefined || args.shell_id !== undefined, {
      message: "name the background shell to stop (task_id)",
      path: ["task_id"],
    });

const defined = defineTool({
  name: "TaskStop",
  // It ends a process: not read-only (a read-only subagent does not get it, plan mode refuses it),
  // so it needs a rule (`TaskStop`, or a legacy name), approval or --force like any other change.
  effects: { kind: "other", readOnly: false, network: false },
  display: (args) => ({ title: `Stop background shell ${args.task_id ?? args.shell_id}`, kind: "execute" }),
  description:
    "Stops a background shell started by Bash with run_in_background, given its id (task_id), " +
    "with every process it started. Returns what was stopped; output it printed before and was not read yet stays readable with BashOutput.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.TaskStop,
  async run(args, ctx) {
    const id = (args.task_id ?? args.shell_id)!;
    const before = ctx.backgroundShells?.info(id);
    if (!before) return { content: unknownShell(id, ctx), isError: true };
    if (before.status !== "running") {
      const why = endNote(before) ?? `It has ${before.status === "completed" ? "completed" : "failed"}`;
      return {
        content: `Background shell ${id} is not running (status: ${before.status}). ${why.replace(/\.?$/, ".")}`,
        isError: true,
      };
    }
    const after = await ctx.backgroundShells!.stop(id, "killed");
    const message = `Successfully stopped background shell: ${id} (${before.command})`;
    return {
      content: message,
      data: {
        message,
        task_id: id,
        task_type: "local_bash",
        command: before.command,
        status: after?.status ?? "killed",
      },
    };
  },
});

export const taskStopTool = Object.assign(defined, { aliases: TASK_STOP_ALIASES });
