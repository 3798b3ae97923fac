/**
 * cairn's exit codes (documented in the README), whichever door the process runs: the CLI's
 * commands and print mode, `cairn acp` or the agent-SDK protocol.
 */
export const EXIT = {
  success: 0,
  /** Runtime failure: provider error after retries, max turns, a failed run. */
  failure: 1,
  /** Usage error: unknown flag, bad value, missing prompt, bad model or scenario. */
  usage: 2,
  /** `--fail-on-denial` and the run had permission denials. */
  denied: 3,
  /** Interrupted by SIGINT (Ctrl-C). */
  sigint: 130,
  /** The terminal hung up (SIGHUP): handled like SIGTERM. */
  sighup: 129,
  /** Terminated by SIGTERM. */
  sigterm: 143,
} as const;

export class UsageError extends Error {
  override name = "UsageError";
}
