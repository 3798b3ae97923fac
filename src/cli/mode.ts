/** What the CLI knows about its terminal before deciding anything. */
export type Terminal = { stdinIsTTY: boolean; stdoutIsTTY: boolean };

/**
 * PM-2: print mode with `-p`, or inferred when stdout is not a terminal or stdin is not one (a piped
 * prompt, or no terminal to be interactive with). Otherwise the user is at a terminal and wants the
 * interactive mode, which cairn does not have yet (the caller prints a usage message, exit 2).
 */
export function isPrintMode(print: boolean, terminal: Terminal): boolean {
  return print || !terminal.stdoutIsTTY || !terminal.stdinIsTTY;
}

/**
 * Where the prompt comes from: the positional argument always wins (stdin is then never read, so an
 * inherited stdin that never closes cannot hang the run); without one, piped stdin; at a terminal
 * with no argument there is no prompt.
 */
export type PromptSource = { from: "argument"; text: string } | { from: "stdin" } | { from: "none" };

export function promptSource(argument: string | undefined, terminal: Terminal): PromptSource {
  if (argument !== undefined) return { from: "argument", text: argument };
  return terminal.stdinIsTTY ? { from: "none" } : { from: "stdin" };
}
