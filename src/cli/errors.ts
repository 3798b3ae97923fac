import { ConfigFileError } from "../config/files.js";
import { McpConfigError } from "../mcp/config.js";
import { RuleSyntaxError } from "../permissions/rules.js";
import { ConfigError } from "../providers/types.js";
import { SandboxUnavailableError } from "../sandbox/policy.js";
import { EXIT, UsageError } from "../util/exit-codes.js";

/**
 * Errors reach the user as one line on stderr, `cairn: <message>`, never a stack trace: wrappers
 * log stderr line by line, and a multi-line provider error would otherwise look like several.
 */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, " ").trim() || "unknown error";
}

export function writeError(message: string): void {
  process.stderr.write(`cairn: ${oneLine(message)}\n`);
}

/**
 * Usage and configuration mistakes exit 2 (the user must change the command or a config file;
 * `--sandbox enabled` where bubblewrap cannot run is one);
 * the rest (a session that is not found or in use included) exit 1.
 */
export function exitCodeFor(error: unknown): number {
  const usage =
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof ConfigFileError ||
    error instanceof RuleSyntaxError ||
    error instanceof McpConfigError ||
    error instanceof SandboxUnavailableError;
  return usage ? EXIT.usage : EXIT.failure;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An interrupted run's last line (`interrupted (SIGINT).`); returns its exit code. */
export function interrupted(code: number): number {
  const what: Record<number, string> = {
    [EXIT.sigint]: "interrupted (SIGINT).",
    [EXIT.sighup]: "hung up (SIGHUP).",
  };
  writeError(what[code] ?? "terminated (SIGTERM).");
  return code;
}
