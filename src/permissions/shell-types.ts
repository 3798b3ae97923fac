/**
 * The parts a shell command line is split into (src/permissions/shell.ts) and the words they hold,
 * shared by the parser, the wrapper table (shell-wrappers.ts) and the checks.
 */

export type ShellWord = {
  /** The word after quote removal and `~` expansion, when it is known before running; else undefined. */
  value?: string;
  /** The word as written. */
  raw: string;
  /** Unquoted `*`, `?` or `[`: the shell replaces the word with matching file names. */
  glob: boolean;
  /** Unquoted brace expansion (`{a,b}`, `{1..3}`): the shell turns the word into several. */
  brace: boolean;
  /** `<(...)` or `>(...)`: a pipe path, not a file. */
  procSubst: boolean;
  /**
   * For a word with a known value and unquoted wildcards: the word as a shell pattern, quoted
   * characters escaped with a backslash (`'*'x*` is `\\*x*`), for src/util/glob.ts.
   */
  pattern?: string;
  /** The word is one of the names a pattern expanded to (set by the checker, not the parser). */
  fromGlob?: boolean;
};

export type ShellAssign = { name: string; value?: ShellWord };

type PartBase = {
  /** Index in `parts`. */
  index: number;
  /** The source text of this part (of the script it came from). */
  text: string;
  /** The wrapper command part this part was unwrapped from (`sudo rm x`: `rm x` has the `sudo` part as parent). */
  parent?: number;
  /**
   * The shell that runs this part: bash (the Bash tool, `bash -c`) or `sh` (`sh -c`: dash on Debian,
   * bash elsewhere; only scripts both read alike get here).
   */
  shell: ScriptShell;
};

export type ScriptShell = "bash" | "sh";

export type WrapperInfo = {
  name: string;
  /**
   * True when the wrapper adds nothing but runs its inner command(s) (`timeout 5 ls`): its own
   * decision is that of its children. False when it must itself be allowed (`sudo`, `find -exec`,
   * or a wrapper with options that cannot be understood).
   */
  transparent: boolean;
  /** Why it is not transparent. */
  problem?: string;
  /** It runs commands nobody can see before it runs (`sh -c "$X"`, `eval "$X"`, `... | sh`). */
  hidden?: boolean;
};

export type ShellCommandPart = PartBase & {
  kind: "command";
  words: ShellWord[];
  /** `NAME=value` prefixes (`LC_ALL=C sort`) and `env NAME=value`. */
  assigns: ShellAssign[];
  wrapper?: WrapperInfo;
};

export type ShellRedirectPart = PartBase & {
  kind: "redirect";
  /** `>`, `>>`, `<`, `<>`, `>&`, `<&`, `>|`, `&>`, `&>>`, `<<`, `<<-`, `<<<`. */
  op: string;
  /** The file descriptor written before the operator (`2>`), if any. */
  fd?: string;
  target: ShellWord;
};

export type ShellAssignPart = PartBase & { kind: "assign"; name: string; declaration?: string };

export type ShellConstructPart = PartBase & { kind: "construct"; what: string };

export type ShellPart = ShellCommandPart | ShellRedirectPart | ShellAssignPart | ShellConstructPart;

export type ShellParse = { ok: true; parts: ShellPart[] } | { ok: false; error: string };
