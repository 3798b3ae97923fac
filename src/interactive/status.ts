import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { Usage } from "../engine/messages.js";

/**
 * The interactive mode's status outside the conversation: the footer's facts (context used, cost,
 * git branch), the terminal's title, and the notice when a long turn ends or a question waits.
 */

/** The branch checked out in the repository around `cwd`, read from `.git/HEAD` (no git process); a detached HEAD gives its short hash. */
export function gitBranch(cwd: string): string | undefined {
  let dir = resolve(cwd);
  while (true) {
    const dotGit = join(dir, ".git");
    try {
      const stat = statSync(dotGit, { throwIfNoEntry: false });
      if (stat) {
        // A worktree or submodule: `.git` is a file naming the real git directory.
        const gitDir = stat.isFile()
          ? resolve(
              dir,
              readFileSync(dotGit, "utf8")
                .replace(/^gitdir:\s*/, "")
                .trim(),
            )
          : dotGit;
        const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
        const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
        return ref ? ref[1] : head.slice(0, 7);
      }
    } catch {
      return undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Tokens the conversation holds after a model call: what it read (cached or not) and wrote. */
export function contextTokens(usage: Usage): number {
  return (
    usage.input_tokens +
    (usage.cache_read_input_tokens ?? 0) +
    (usage.cache_creation_input_tokens ?? 0) +
    usage.output_tokens
  );
}

export type FooterFacts = {
  model: string | undefined;
  mode: string;
  /** Tokens in the context after the last model call, and the model's window. */
  context: { tokens: number; window: number | undefined } | undefined;
  /** USD so far; null: some call's price is unknown; undefined: nothing spent yet. */
  cost: number | null | undefined;
  cwd: string;
  branch: string | undefined;
};

/** `model · mode (shift+tab) · 12% context · $0.04 · ~/project (main)` */
export function footerText(facts: FooterFacts): string {
  const parts: string[] = [];
  if (facts.model) parts.push(facts.model);
  parts.push(`${facts.mode} (shift+tab)`);
  if (facts.context) {
    const { tokens, window } = facts.context;
    parts.push(
      window ? `${Math.min(100, Math.round((tokens / window) * 100))}% context` : `${tokens} tokens`,
    );
  }
  if (facts.cost !== undefined)
    parts.push(facts.cost === null ? "cost unknown" : `$${facts.cost.toFixed(2)}`);
  parts.push(`${homeRelative(facts.cwd)}${facts.branch ? ` (${facts.branch})` : ""}`);
  return parts.join(" · ");
}

function homeRelative(path: string): string {
  const home = homedir();
  return home !== "/" && (path === home || path.startsWith(`${home}/`))
    ? `~${path.slice(home.length)}`
    : path;
}

/** Save the terminal's title on its stack, and restore it (xterm's window ops; others ignore them). */
export const TITLE_PUSH = "\x1b[22;0t";
export const TITLE_POP = "\x1b[23;0t";

/** OSC 0 (icon name and title): `cairn · project`, with `●` in front while a turn runs. */
export function titleSequence(cwd: string, busy: boolean): string {
  const title = `${busy ? "● " : ""}cairn · ${basename(cwd) || cwd}`;
  return `\x1b]0;${title.replace(/[\x00-\x1f\x7f]/g, "")}\x07`;
}

export type NotifyChannel = "osc9" | "bell" | "both" | "off";
const CHANNELS: readonly NotifyChannel[] = ["osc9", "bell", "both", "off"];
/** A turn at least this long gets a notice when it ends (CAIRN_NOTIFY_AFTER overrides). */
const DEFAULT_AFTER_SECONDS = 10;

export type NotifySettings = { channel: NotifyChannel; afterMs: number; warnings: string[] };

/**
 * CAIRN_NOTIFY (`osc9`, the default: a desktop notification where the terminal shows OSC 9 —
 * iTerm2, WezTerm, kitty, Ghostty, Windows Terminal —, `bell`, `both`, `off`) and
 * CAIRN_NOTIFY_AFTER (seconds a turn must take to be worth a notice). A value cairn does not know
 * is said once, and the default used.
 */
export function notifySettings(env: NodeJS.ProcessEnv): NotifySettings {
  const warnings: string[] = [];
  let channel: NotifyChannel = "osc9";
  const wanted = env.CAIRN_NOTIFY;
  if (wanted !== undefined && wanted !== "") {
    if ((CHANNELS as readonly string[]).includes(wanted)) channel = wanted as NotifyChannel;
    else warnings.push(`CAIRN_NOTIFY=${wanted} is not one of ${CHANNELS.join(", ")}; using osc9.`);
  }
  let afterMs = DEFAULT_AFTER_SECONDS * 1000;
  const after = env.CAIRN_NOTIFY_AFTER;
  if (after !== undefined && after !== "") {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) afterMs = seconds * 1000;
    else
      warnings.push(
        `CAIRN_NOTIFY_AFTER=${after} is not a number of seconds; using ${DEFAULT_AFTER_SECONDS}.`,
      );
  }
  return { channel, afterMs, warnings };
}

/** Focus reporting on and off (the terminal then sends `CSI I` / `CSI O`). */
export const FOCUS_REPORTING_ON = "\x1b[?1004h";
export const FOCUS_REPORTING_OFF = "\x1b[?1004l";

/**
 * Notices for the user who looked away: when a long turn ends, when a question waits. Only while
 * the terminal is not focused, where it reports focus; where it never has, always.
 */
export class Notifier {
  /** Undefined until the terminal reports focus. */
  private focused: boolean | undefined;

  constructor(
    private readonly settings: NotifySettings,
    private readonly write: (data: string) => void,
  ) {}

  /** Takes the focus reports out of `data` (noting the last one); returns the rest. */
  focusIn(data: string): string {
    return data.replace(/\x1b\[(I|O)/g, (_, which: string) => {
      this.focused = which === "I";
      return "";
    });
  }

  turnEnded(durationMs: number, message: string): void {
    if (durationMs >= this.settings.afterMs) this.notify(message);
  }

  waiting(message: string): void {
    this.notify(message);
  }

  private notify(message: string): void {
    const { channel } = this.settings;
    if (channel === "off" || this.focused === true) return;
    const text = message.replace(/[\x00-\x1f\x7f]/g, "");
    if (channel === "osc9" || channel === "both") this.write(`\x1b]9;${text}\x07`);
    if (channel === "bell" || channel === "both") this.write("\x07");
  }
}
