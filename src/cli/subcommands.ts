/**
 * The names of the CLI's own subcommands, in a module of their own so that recognising one loads
 * nothing more (the entry reads them before it picks a door).
 */

/** The reference CLI's subcommands cairn answers itself (src/cli/reference-commands.ts). */
export const REFERENCE_COMMANDS: ReadonlySet<string> = new Set([
  "status",
  "whoami",
  "about",
  "create-chat",
  "login",
  "logout",
  "update",
  "upgrade",
  "set-channel",
  "help",
]);

/** What the CLI door answers as a subcommand whatever the other arguments say. */
export const CLI_SUBCOMMANDS: readonly string[] = ["models", "ls", "mcp", ...REFERENCE_COMMANDS];
