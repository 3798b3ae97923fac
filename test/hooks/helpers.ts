import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Real shell scripts used as command hooks. Each is written into the test workspace under `hooks/`
 * and run as `sh hooks/<name>.sh` (a file mode set by a checkout does not matter).
 */
export const SCRIPTS = {
  /** Appends its input (one JSON line) to hook-log.ndjson in the workspace; answers nothing. */
  log: 'input=$(cat)\nprintf \'%s\\n\' "$input" >> "$CAIRN_PROJECT_DIR/hook-log.ndjson"\n',
  /** Refuses, with exit code 2 and the reason on stderr, a call whose file_path names a .env file. */
  blockEnv:
    'input=$(cat)\ncase "$input" in *\'.env"\'*) echo "writing .env files is not allowed" >&2; exit 2;; esac\nexit 0\n',
  /** Prints its first argument as the hook's JSON answer. */
  answer: 'cat > /dev/null\nprintf "%s" "$1"\n',
  /** Sleeps far longer than any test waits. */
  sleep: "cat > /dev/null\nsleep 30\n",
  /** Crashes: exit 1 with a message. */
  crash: 'cat > /dev/null\necho "hook script crashed" >&2\nexit 1\n',
  /** Prints something that looks like JSON but is not. */
  brokenJson: "cat > /dev/null\necho '{\"decision\": '\n",
  /** Blocks the first stop (stop_hook_active false), lets the second one through. */
  stopOnce:
    'input=$(cat)\ncase "$input" in *\'"stop_hook_active":false\'*) printf \'{"decision":"block","reason":"Run the tests before you stop."}\';; esac\n',
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** The files of a workspace holding the given scripts. */
export function scriptFiles(...names: ScriptName[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [`hooks/${name}.sh`, SCRIPTS[name]]));
}

/** The command that runs a script, with an optional argument (quoted for sh). */
export function run(name: ScriptName, argument?: unknown): string {
  const arg =
    argument === undefined
      ? ""
      : ` '${(typeof argument === "string" ? argument : JSON.stringify(argument)).replace(/'/g, "'\\''")}'`;
  return `sh hooks/${name}.sh${arg}`;
}

/** Claude's settings format: every event to the same command. */
export function claudeHooks(
  entries: Record<string, string | { command: string; matcher?: string; timeout?: number }[]>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(entries).map(([event, value]) => [
      event,
      (typeof value === "string" ? [{ command: value }] : value).map(({ command, matcher, timeout }) => ({
        ...(matcher !== undefined ? { matcher } : {}),
        hooks: [{ type: "command", command, ...(timeout !== undefined ? { timeout } : {}) }],
      })),
    ]),
  );
}

/** The inputs the log script wrote, in order. */
export function loggedInputs(dir: string): Record<string, unknown>[] {
  const file = join(dir, "hook-log.ndjson");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The events that fired, in order, from the log. */
export function loggedEvents(dir: string): string[] {
  return loggedInputs(dir).map((input) => String(input.hook_event_name));
}

/** The body of a model request as text, to look for what the model was told. */
export function requestText(body: unknown): string {
  return JSON.stringify(body);
}
