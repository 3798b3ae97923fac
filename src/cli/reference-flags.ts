import { UsageError } from "../util/exit-codes.js";

/**
 * Flags of the reference CLI that cairn does not have, each with the reason and what to do instead,
 * so a program written for the reference fails on the first one with a line naming it (docs/cli.md).
 * `-c` is not here: in cairn it is `--continue` (the agent SDKs' convention), not `--cloud`.
 */
const REFERENCE_ONLY_FLAGS: Readonly<Record<string, string>> = {
  "--auto-review":
    "cairn has no classifier approval mode: allow what a run may do with --allowedTools rules, or pass --force",
  "--worktree": "cairn does not create git worktrees: make one (git worktree add) and pass --workspace <dir>",
  "-w": "cairn does not create git worktrees: make one (git worktree add) and pass --workspace <dir>",
  "--worktree-base":
    "cairn does not create git worktrees: make one (git worktree add) and pass --workspace <dir>",
  "--skip-worktree-setup": "cairn does not create git worktrees, so there is no setup to skip",
  "--cloud": "cairn has no cloud agent: it runs here, on this machine",
  "--name": "cairn sessions have no names: create-chat or --new-session-id gives a session id to --resume",
  "-n": "cairn sessions have no names: create-chat or --new-session-id gives a session id to --resume",
  "--endpoint": "cairn talks to your model provider: give its address with --base-url",
  "--insecure":
    "cairn never turns TLS verification off: trust the server's certificate with NODE_EXTRA_CA_CERTS",
  "--auth-token": "cairn has no account to authenticate: use --api-key or the provider's key variable",
  "--background": "cairn's interactive mode cannot be left in the background: run the prompt with -p",
  "-b": "cairn's interactive mode cannot be left in the background: run the prompt with -p",
  "--fullscreen":
    "cairn's interactive mode is always inline, in the terminal's own scrollback (docs/interactive.md)",
  "--with-diffs": "stream-json carries the diffs (diffString, before/after contents) by default",
  "--prompt": 'give the prompt as an argument: cairn -p "<prompt>"',
};

/** Throws a usage error naming the first reference-only flag in `argv` (before any `--`). */
export function refuseReferenceOnlyFlags(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === "--") return;
    const flag = arg.startsWith("--") ? arg.split("=")[0]! : arg;
    const reason = Object.hasOwn(REFERENCE_ONLY_FLAGS, flag) ? REFERENCE_ONLY_FLAGS[flag] : undefined;
    if (reason)
      throw new UsageError(`${flag} is a flag of the reference CLI that cairn does not have: ${reason}`);
  }
}

export const REFERENCE_ONLY_FLAG_NAMES: readonly string[] = Object.keys(REFERENCE_ONLY_FLAGS);
