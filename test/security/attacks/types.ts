/**
 * One attack: what the attacker (who writes the model's tool calls) prepares, the calls it makes,
 * and the effect that proves it worked. Strings may use `{case}` (the case's own directory inside
 * the workspace), `{out}` (a directory of this case outside the workspace), `{home}` (the HOME the
 * commands get) and `{id}` (the case's id, unique in the run).
 */
export type AttackCase = {
  name: string;
  /** Files in `{case}` before the calls (what the model could write with the Write tool). */
  files?: Record<string, string>;
  /** Files in `{out}` (what lies outside the workspace). */
  outside?: Record<string, string>;
  /** Symbolic links in `{case}`: name → target. */
  links?: Record<string, string>;
  /** A bash script run in `{case}` before the calls (`git init`, ...), with the same effect as Write calls. */
  setup?: string;
  calls: Call[];
  /** Where the case runs: print mode's default (checker only), `--force` with deny rules, or both. */
  modes: readonly Mode[];
  effect: Effect;
  /** Only meaningful as root (`su`, `chroot`): skipped elsewhere, since its control cannot succeed. */
  root?: boolean;
};

export type Mode = "plain" | "force";

export type Call =
  | { tool: "Bash"; command: string }
  | { tool: "Write"; file_path: string; content: string }
  | { tool: "Read"; file_path: string };

/**
 * How an escape shows: a file that appears (`file`, optionally with `contains`), a file that
 * disappears (`gone`), or text that only an outside file holds reaching the model (`output`).
 */
export type Effect = { file: string; contains?: string } | { gone: string } | { output: string };

export type Family = { family: string; cases: AttackCase[] };

/** The deny rules of the runs: what the deny-rule cases try to get around. */
export const PLAIN_DENY = ["Read(.env)"];
export const FORCE_DENY = ["Bash(touch:*)", "Bash(rm:*)", "Read(.env)"];
