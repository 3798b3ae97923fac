import * as z from "zod";
import type { BackgroundShellInfo } from "./background-shells.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import type { ToolContext } from "./types.js";

const input = () =>
  z.object({
    bash_id: z.string().min(1).describe("The ID of the background shell to retrieve output from."),
    filter: z
      .string()
      .optional()
      .describe(
        "Optional regular expression: only output lines matching it are shown. Lines that do not match are no longer available to read.",
      ),
  });

export const bashOutputTool = defineTool({
  name: "BashOutput",
  // Reads what a shell of the session printed: nothing outside the conversation changes.
  effects: { kind: "read", readOnly: true, network: false },
  display: (args) => ({
    title: `Output of background shell ${args.bash_id}${args.filter ? ` matching ${JSON.stringify(args.filter)}` : ""}`,
    kind: "read",
    locations: [],
  }),
  description:
    "Retrieves output from a running or completed background shell (started by Bash with run_in_background). " +
    "Takes the shell's id (bash_id) and returns only the output printed since the last check, stdout and stderr, " +
    "with the shell's status (running, completed, failed or killed) and exit code once it has ended. " +
    "An optional regex filter shows only the lines matching it. Use it to follow a long-running command such as a dev server or a test watcher.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.BashOutput,
  async run(args, ctx) {
    let pattern: RegExp | undefined;
    if (args.filter !== undefined) {
      try {
        pattern = new RegExp(args.filter);
      } catch (error) {
        return { content: `Invalid filter regular expression: ${(error as Error).message}`, isError: true };
      }
    }
    const read = ctx.backgroundShells?.read(args.bash_id);
    if (!read) return { content: unknownShell(args.bash_id, ctx), isError: true };
    const stdout = filtered(read.stdout.text, pattern);
    const stderr = filtered(read.stderr.text, pattern);
    const sections = [`<status>${read.status}</status>`];
    if (read.exitCode !== null) sections.push(`<exit_code>${read.exitCode}</exit_code>`);
    if (stdout) sections.push(`<stdout>\n${stdout.replace(/\n$/, "")}\n</stdout>`);
    if (stderr) sections.push(`<stderr>\n${stderr.replace(/\n$/, "")}\n</stderr>`);
    const dropped = read.stdout.droppedChars + read.stderr.droppedChars;
    if (dropped > 0) {
      sections.push(
        `<note>${dropped} characters of older output were dropped before this read: only the newest output of each stream is kept between reads.</note>`,
      );
    }
    const ended = endNote(read);
    if (ended) sections.push(`<note>${ended}</note>`);
    sections.push(`<timestamp>${new Date().toISOString()}</timestamp>`);
    return {
      content: sections.join("\n\n"),
      data: {
        shellId: read.id,
        command: read.command,
        status: read.status,
        exitCode: read.exitCode,
        signal: read.signal,
        ...(read.stoppedBy ? { stoppedBy: read.stoppedBy } : {}),
        stdout,
        stderr,
        ...(read.stdout.droppedChars > 0 ? { stdoutDroppedChars: read.stdout.droppedChars } : {}),
        ...(read.stderr.droppedChars > 0 ? { stderrDroppedChars: read.stderr.droppedChars } : {}),
        runtimeMs: read.runtimeMs,
      },
    };
  },
});

/** Only the lines matching `pattern` (all of them without one). */
function filtered(text: string, pattern: RegExp | undefined): string {
  if (!pattern || !text) return text;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const kept = lines.filter((line) => pattern.test(line));
  return kept.length > 0 ? `${kept.join("\n")}\n` : "";
}

/** Why a shell that cairn stopped has ended. */
export function endNote(shell: BackgroundShellInfo): string | undefined {
  switch (shell.stoppedBy) {
    case "killed":
      return "The shell was stopped by TaskStop.";
    case "timeout":
      return "The shell was stopped: it ran past its timeout.";
    case "session_end":
      return "The shell was stopped because the session ended.";
    default:
      return undefined;
  }
}

/** What the model is told about an id this session has no shell for. */
export function unknownShell(id: string, ctx: ToolContext): string {
  const running = ctx.backgroundShells?.running().map((shell) => shell.id) ?? [];
  return (
    `No background shell with ID ${id} in this session (background shells end with the session that started them). ` +
    (running.length > 0 ? `Running now: ${running.join(", ")}.` : "No background shell is running.")
  );
}
