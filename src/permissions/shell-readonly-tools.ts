import {
  type GitStart,
  OPTIONS_ONLY,
  options,
  type ReadOnlyCheck,
  type Scan,
  scanOptions,
} from "./shell-options.js";
import type { ShellWord } from "./shell-types.js";

/**
 * Read-only checks for commands with a grammar of their own: `find` expressions, `sed` scripts,
 * `awk` programs, `jq`, `git` subcommands, and the shell builtins `printf`, `test`, `set`, `cd`.
 */

/** A list of words written as one string. */
const list = (words: string): string[] => words.split(/\s+/).filter(Boolean);

const FIND_VALUE = new Set(
  list(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype -size -mtime -mmin -atime -amin -ctime -cmin -used -perm -user -group -uid -gid -links -inum -maxdepth -mindepth -printf -lname -ilname -fstype -context",
  ),
);
const FIND_PATH_VALUE = new Set(["-newer", "-anewer", "-cnewer", "-samefile"]);
const FIND_FLAGS = new Set(
  list(
    "-empty -print -print0 -ls -prune -quit -true -false -depth -d -mount -xdev -noleaf -readable -writable -executable -daystart -ignore_readdir_race -noignore_readdir_race -nouser -nogroup -nowarn -warn -not -a -and -o -or ( ) ! ,",
  ),
);
const FIND_DENIED: Record<string, string> = {
  "-exec": "runs a command",
  "-execdir": "runs a command",
  "-ok": "runs a command",
  "-okdir": "runs a command",
  "-delete": "deletes files",
  "-fprint": "writes a file",
  "-fprint0": "writes a file",
  "-fprintf": "writes a file",
  "-fls": "writes a file",
  "-follow": "follows symbolic links out of the workspace",
  "-L": "follows symbolic links out of the workspace",
  "-H": "follows symbolic links out of the workspace",
};

export const find: ReadOnlyCheck = (args, checker) => {
  let i = 0;
  while (i < args.length && ["-P", "-D", "-O", "-L", "-H"].some((o) => args[i]!.value?.startsWith(o))) {
    const value = args[i]!.value!;
    if (FIND_DENIED[value]) return `find ${value}: ${FIND_DENIED[value]}`;
    i += value === "-D" ? 2 : 1;
  }
  for (; i < args.length; i += 1) {
    const value = args[i]!.value;
    if (value !== undefined && (value.startsWith("-") || ["(", "!", ")", ","].includes(value))) break;
    const problem = checker.readPath(args[i]!);
    if (problem) return problem;
  }
  for (; i < args.length; i += 1) {
    const word = args[i]!;
    const value = word.value;
    if (value === undefined) return `the find argument ${word.raw} is computed at run time`;
    if (FIND_DENIED[value]) return `find ${value}: ${FIND_DENIED[value]}`;
    if (FIND_FLAGS.has(value)) continue;
    if (FIND_VALUE.has(value)) {
      i += 1;
      if (args[i]?.value === undefined)
        return `the value of find ${value} is missing or computed at run time`;
      continue;
    }
    if (FIND_PATH_VALUE.has(value) || /^-newer[a-zA-Z]{2}$/.test(value)) {
      i += 1;
      const operand = args[i];
      if (!operand) return `find ${value} is missing its value`;
      if (value.endsWith("t") && value.startsWith("-newer") && value.length === 8) continue;
      const problem = checker.readPath(operand);
      if (problem) return problem;
      continue;
    }
    return `find ${value} is not in the read-only list`;
  }
  return undefined;
};

/** `sed` scripts made only of commands that neither write (`w`), read other files (`r`) nor execute (`e`). */
export function sedScriptIsSafe(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipSpace = () => {
    while (i < n && /[\s;{}]/.test(script[i]!)) i += 1;
  };
  const readDelimited = (delim: string): boolean => {
    while (i < n && script[i] !== delim) {
      if (script[i] === "\\") i += 1;
      else if (script[i] === "\n") return false;
      i += 1;
    }
    if (i >= n) return false;
    i += 1;
    return true;
  };
  const address = (): boolean => {
    if (i >= n) return true;
    const char = script[i]!;
    if (/[0-9]/.test(char)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i += 1;
    } else if (char === "$") {
      i += 1;
    } else if (char === "/" || char === "\\") {
      let delim = "/";
      if (char === "\\") {
        delim = script[i + 1] ?? "";
        if (delim === "" || delim === "\n") return false;
        i += 1;
      }
      i += 1;
      if (!readDelimited(delim)) return false;
      while (i < n && /[IM]/.test(script[i]!)) i += 1;
    } else if (char === "+" || char === "~") {
      i += 1;
      while (i < n && /[0-9]/.test(script[i]!)) i += 1;
    }
    return true;
  };
  while (true) {
    skipSpace();
    if (i >= n) return true;
    if (!address()) return false;
    if (script[i] === ",") {
      i += 1;
      if (!address()) return false;
    }
    while (i < n && /[ \t!]/.test(script[i]!)) i += 1;
    const command = script[i];
    if (command === undefined) return false;
    i += 1;
    if ("pPdDlnNgGhHxz=F".includes(command) || command === "}" || command === "{") continue;
    if (command === "q" || command === "Q") {
      while (i < n && /[0-9 ]/.test(script[i]!)) i += 1;
      continue;
    }
    if (command === ":" || command === "b" || command === "t" || command === "T") {
      while (i < n && script[i] !== ";" && script[i] !== "\n") i += 1;
      continue;
    }
    if (command === "a" || command === "i" || command === "c") {
      while (i < n && script[i] !== "\n") {
        if (script[i] === "\\") i += 1;
        i += 1;
      }
      continue;
    }
    if (command === "s" || command === "y") {
      const delim = script[i];
      if (delim === undefined || delim === "\\" || delim === "\n") return false;
      i += 1;
      if (!readDelimited(delim) || !readDelimited(delim)) return false;
      if (command === "s") {
        while (i < n && /[gpiImM0-9]/.test(script[i]!)) i += 1;
        if (i < n && /[ew]/.test(script[i]!)) return false;
      }
      continue;
    }
    return false;
  }
}

/**
 * The programs of `sed`/`awk` (given with `options`, else the first operand) and the files they
 * read; a problem when the program would be what an expansion produces.
 */
function programAndFiles(
  scan: Scan,
  options: readonly string[],
  what: string,
  missing: string,
): { programs: ShellWord[]; files: ShellWord[] } | string {
  const programs = scan.options.filter((o) => options.includes(o.name)).map((o) => o.value!);
  if (programs.length > 0) return { programs, files: scan.operands };
  const [first, ...files] = scan.operands;
  if (!first) return missing;
  if (first.fromGlob || first.brace) return `the ${what} would be what an expansion produces`;
  return { programs: [first], files };
}

export const sed: ReadOnlyCheck = (args, checker) => {
  const scan = scanOptions("sed", args, {
    shortValue: "elf",
    longValue: ["--expression", "--line-length", "--file"],
    longFlags: list(
      "--null-data --zero-terminated --quiet --silent --regexp-extended --separate --sandbox --unbuffered --debug --posix --follow-symlinks --binary --help --version",
    ),
    deny: {
      "-i": "edits files in place",
      "--in-place": "edits files in place",
      "-f": "runs a script file",
      "--file": "runs a script file",
    },
    operands: "paths",
  });
  if (scan.problem) return scan.problem;
  const sandbox = scan.options.some((option) => option.name === "--sandbox");
  const split = programAndFiles(scan, ["-e", "--expression"], "sed script", "sed without a script");
  if (typeof split === "string") return split;
  const { programs: scripts, files } = split;
  for (const script of scripts) {
    if (script.value === undefined) return "the sed script is computed at run time";
    if (!sandbox && !sedScriptIsSafe(script.value))
      return `the sed script ${JSON.stringify(script.value)} may write, read other files or run commands (w, r, e)`;
  }
  for (const file of files) {
    const problem = checker.readPath(file);
    if (problem) return problem;
  }
  return undefined;
};

/**
 * awk programs that cannot run commands, write files or read files nobody named: no `system`,
 * pipes, redirections, `getline`, and no `ARGV`/`ARGC` (`ARGV[1]="/etc/passwd"` adds a file to read).
 */
export function awkProgramIsSafe(program: string): boolean {
  return !/system|getline|close|fflush|ARGV|ARGC|[|>@`]/.test(program);
}

export const awk: ReadOnlyCheck = (args, checker) => {
  const scan = scanOptions("awk", args, {
    shortValue: "Fve",
    longValue: ["--field-separator", "--assign", "--source"],
    longFlags: list(
      "--sandbox --characters-as-bytes --traditional --copyright --gen-pot --help --lint --bignum --use-lc-numeric --no-optimize --optimize --posix --re-interval --trace --version --csv --non-decimal-data",
    ),
    deny: {
      "-f": "runs a program file",
      "--file": "runs a program file",
      "-i": "loads a program file",
      "--include": "loads a program file",
      "-l": "loads an extension",
      "--load": "loads an extension",
      "-E": "runs a program file",
      "--exec": "runs a program file",
      "-p": "writes a profile file",
      "--profile": "writes a profile file",
      "-o": "writes a file",
      "--pretty-print": "writes a file",
      "-d": "writes a file",
      "--dump-variables": "writes a file",
      "-D": "starts a debugger",
      "--debug": "starts a debugger",
      "-W": "mawk/posix options are not checked",
    },
    operands: "paths",
  });
  if (scan.problem) return scan.problem;
  const sandbox = scan.options.some((o) => o.name === "-S" || o.name === "--sandbox");
  const split = programAndFiles(scan, ["-e", "--source"], "awk program", "awk without a program");
  if (typeof split === "string") return split;
  const { programs, files } = split;
  for (const option of scan.options) {
    if (option.name !== "-v" && option.name !== "--assign") continue;
    if (option.value?.value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(option.value.value))
      return "an awk -v assignment that is not NAME=value";
    if (/^(ARGV|ARGC)=/.test(option.value.value)) return "awk -v ARGV/ARGC names other files to read";
  }
  for (const program of programs) {
    if (program.value === undefined) return "the awk program is computed at run time";
    if (!sandbox && !awkProgramIsSafe(program.value))
      return "the awk program may run commands, write files or read other files (system, |, >, getline, ARGV)";
  }
  for (const file of files) {
    if (file.value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(file.value)) continue;
    const problem = checker.readPath(file);
    if (problem) return problem;
  }
  return undefined;
};

export const jq: ReadOnlyCheck = (args, checker) => {
  const twoValues = new Set(["--arg", "--argjson", "--slurpfile", "--rawfile"]);
  const flags = /^-[rjacsneSCMRh0V]+$/;
  const longFlags = new Set(
    list(
      "--tab --seq --stream --stream-errors --raw-output --raw-output0 --raw-input --ascii-output --join-output --compact-output --slurp --null-input --exit-status --sort-keys --color-output --monochrome-output --unbuffered --help --version --build-configuration",
    ),
  );
  const operands: ShellWord[] = [];
  let program: ShellWord | undefined;
  let fromFile = false;
  let restAreArgs = false;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i]!;
    const value = word.value;
    if (restAreArgs) continue;
    if (value === undefined) {
      if (program === undefined && !fromFile) return "the jq program is computed at run time";
      operands.push(word);
      continue;
    }
    if (value === "--args" || value === "--jsonargs") {
      restAreArgs = program !== undefined || fromFile;
      continue;
    }
    if (twoValues.has(value)) {
      const file = args[i + 2];
      if (!file) return `jq ${value} is missing its values`;
      if (value === "--slurpfile" || value === "--rawfile") {
        const problem = checker.readPath(file);
        if (problem) return problem;
      }
      i += 2;
      continue;
    }
    if (value === "--indent") {
      i += 1;
      continue;
    }
    if (
      value === "-L" ||
      value.startsWith("-L") ||
      value === "--library-path" ||
      value.startsWith("--library-path=")
    ) {
      // Modules are read from the library path.
      const attached = value.startsWith("--library-path=")
        ? value.slice(15)
        : value.startsWith("-L")
          ? value.slice(2)
          : "";
      const dir = attached !== "" ? { ...word, value: attached, raw: attached } : args[i + 1];
      if (attached === "") i += 1;
      if (!dir) return `jq ${value} is missing its directory`;
      const problem = checker.readPath(dir);
      if (problem) return problem;
      continue;
    }
    if (value === "-f" || value === "--from-file") {
      const file = args[i + 1];
      if (!file) return "jq -f is missing its file";
      const problem = checker.readPath(file);
      if (problem) return problem;
      fromFile = true;
      i += 1;
      continue;
    }
    if (flags.test(value) || longFlags.has(value)) continue;
    if (value.startsWith("-") && value !== "-") return `jq option ${value} is not in the read-only list`;
    if (program === undefined && !fromFile) program = word;
    else operands.push(word);
  }
  if (program?.fromGlob || program?.brace) return "the jq program would be what an expansion produces";
  // `import "x" as $d;` and `include "x";` read files from the library path, relative ones too.
  if (program?.value !== undefined && /\b(import|include)\b/.test(program.value))
    return "the jq program imports modules, which read other files";
  for (const file of operands) {
    const problem = checker.readPath(file);
    if (problem) return problem;
  }
  return undefined;
};

export const printf: ReadOnlyCheck = (args) => {
  const first = args[0];
  if (!first) return undefined;
  if (first.value === undefined || (first.glob && /^[*?[]/.test(first.value)))
    return "the printf format is computed at run time";
  if (first.value.startsWith("-") && first.value !== "--" && first.value.includes("v"))
    return "printf -v assigns a variable";
  return undefined;
};

export const testCommand: ReadOnlyCheck = (args) => {
  for (const [i, word] of args.entries()) {
    if (word.value !== undefined && /\$\(|`/.test(word.value))
      return "a test argument contains command-substitution text (evaluated by -v and arithmetic tests)";
    // `test -v NAME` evaluates an array subscript in NAME: `x='a[$(cmd)]'; test -v "$x"` runs cmd.
    const next = args[i + 1];
    if ((word.value === "-v" || word.value === "-R") && next && next.value === undefined)
      return "test -v with a variable name computed at run time";
  }
  return undefined;
};

/** `set -o` names that change nothing about what runs or how words are read. */
const SET_O_NAMES = new Set(list("errexit nounset xtrace verbose pipefail noclobber errtrace functrace"));

/**
 * `set` with the options that keep the script's meaning: `-e -u -x -v -C -E -T` and `-o pipefail`
 * and the like. Refused: `-k` (assignments anywhere become environment: `set -k; ls BASH_ENV=x`),
 * `-a` (every assignment exported), `-f`/`-B`/`-H` (change how words expand), `-o` names beyond
 * the harmless list (`-o keyword`, `-o allexport`, `-o posix`), `-n`, `-h`, `-m`, `-b`, `-P`.
 */
export const set: ReadOnlyCheck = (args) => {
  for (let i = 0; i < args.length; i += 1) {
    const value = args[i]!.value;
    if (value === undefined) return "a set argument is computed at run time";
    if (value === "--" || value === "-") return undefined;
    if (!/^[-+][euxvCETo]+$/.test(value)) {
      if (/^[-+]/.test(value)) return `set ${value} changes how later commands are read or run`;
      return `set ${value} is not in the read-only list`;
    }
    // `-o NAME` (also at the end of a cluster: `-euo pipefail`) takes the option name.
    if (value.slice(1).includes("o")) {
      if (!value.endsWith("o")) return `set ${value} is not in the read-only list`;
      const option = args[i + 1]?.value;
      if (option === undefined) return "set -o without an option name lists or is computed at run time";
      if (!SET_O_NAMES.has(option)) return `set -o ${option} changes how later commands are read or run`;
      i += 1;
    }
  }
  return undefined;
};

export const cd: ReadOnlyCheck = (args, checker) => {
  const operands = args.filter(
    (word) => word.value !== "-P" && word.value !== "-L" && word.value !== "-e" && word.value !== "--",
  );
  if (operands.length === 0)
    return "cd without a directory goes to the home directory, outside the workspace";
  if (operands.length > 1) return "cd with more than one argument";
  if (operands[0]!.value === "-") return "cd - goes to a directory that cannot be checked";
  return checker.readPath(operands[0]!);
};

/** The configured part of `git` that only reads. */
const GIT_READ_SUBCOMMANDS: Record<string, ReadOnlyCheck> = {};

const gitHistory = options({
  operands: "paths",
  deny: {
    "--output": "writes a file",
    "--ext-diff": "runs an external diff program",
    "--open-files-in-pager": "runs a pager program",
    "--textconv": "runs textconv programs",
  },
});

/**
 * `REV:PATH` (and `:PATH`, `:0:PATH`) names a file's content in the repository: read like the
 * file itself, so a `Read(.env)` deny covers `git show HEAD:.env`. Relative to the repository's
 * top (the workspace), or to the working directory with `./`.
 */
function withObjectPaths(check: ReadOnlyCheck): ReadOnlyCheck {
  return (args, checker) => {
    for (const word of args) {
      const value = word.value;
      if (value === undefined || value.startsWith("-")) continue;
      const colon = value.search(/:(?!\/)/);
      if (colon === -1) continue;
      const inRepo = value.slice(colon + 1).replace(/^\d:/, "");
      if (inRepo === "") continue;
      const problem = checker.readRepoPath(inRepo);
      if (problem) return problem;
    }
    return check(args, checker);
  };
}
for (const sub of list(
  "diff show log whatchanged shortlog diff-tree diff-files diff-index rev-list blame annotate",
))
  GIT_READ_SUBCOMMANDS[sub] = withObjectPaths(gitHistory.make(`git ${sub}`));
for (const sub of list(
  "status rev-parse ls-files ls-tree cat-file merge-base describe name-rev show-ref for-each-ref count-objects check-ignore check-attr var version show-branch cherry",
))
  GIT_READ_SUBCOMMANDS[sub] = withObjectPaths(options({ operands: "paths" }).make(`git ${sub}`));
GIT_READ_SUBCOMMANDS.grep = options({
  operands: "pattern+paths",
  patternOptions: ["-e", "-f", "--file"],
  shortValue: "efABCm",
  longValue: ["--file", "--max-count", "--after-context", "--before-context", "--context", "--threads"],
  pathOptions: ["-f", "--file"],
  deny: {
    "-O": "runs a pager program",
    "--open-files-in-pager": "runs a pager program",
    "--ext-grep": "runs a program",
  },
}).make("git grep");

function gitListOnly(
  name: string,
  allowed: RegExp,
  valued: Set<string>,
  listFlags: Set<string>,
): ReadOnlyCheck {
  return (args) => {
    let listing = false;
    let operands = 0;
    for (let i = 0; i < args.length; i += 1) {
      const value = args[i]!.value;
      if (value === undefined) return `the ${name} argument ${args[i]!.raw} is computed at run time`;
      if (value.startsWith("-")) {
        const option = value.split("=")[0]!;
        if (!allowed.test(option)) return `${name} ${option} changes the repository`;
        if (listFlags.has(option)) listing = true;
        if (valued.has(option) && !value.includes("=")) i += 1;
        continue;
      }
      operands += 1;
    }
    if (operands > 0 && !listing) return `${name} with a name creates or changes something`;
    return undefined;
  };
}

GIT_READ_SUBCOMMANDS.branch = gitListOnly(
  "git branch",
  /^(-a|--all|-r|--remotes|-v|-vv|--verbose|-l|--list|--show-current|--contains|--no-contains|--merged|--no-merged|--points-at|--sort|--format|--color|--no-color|--column|--no-column|-i|--ignore-case|--omit-empty|--abbrev|--no-abbrev)$/,
  new Set(["--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"]),
  new Set(["-l", "--list"]),
);
GIT_READ_SUBCOMMANDS.tag = gitListOnly(
  "git tag",
  /^(-l|--list|-n\d*|--sort|--contains|--no-contains|--merged|--no-merged|--points-at|--format|--column|--no-column|-i|--ignore-case|--color)$/,
  new Set(["--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"]),
  new Set(["-l", "--list"]),
);
GIT_READ_SUBCOMMANDS.remote = (args) => {
  const values = args.map((word) => word.value);
  if (values.every((v) => v === "-v" || v === "--verbose")) return undefined;
  if (values[0] === "get-url" && values.length <= 3 && values.every((v) => v !== undefined)) return undefined;
  return "git remote with these arguments changes or contacts a remote";
};
GIT_READ_SUBCOMMANDS.config = (args, checker) => {
  const reads = /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|--list|-l)$/;
  const modifiers =
    /^(--global|--system|--local|--worktree|--blob|--show-origin|--show-scope|--name-only|-z|--null|--type|--bool|--int|--bool-or-int|--path|--expiry-date|--default|--includes|--no-includes|-f|--file)$/;
  // `git config get|list` (git ≥ 2.46) read; their options are checked like the others'.
  const first = args[0]?.value;
  const subcommand = first === "get" || first === "list";
  let reading = subcommand;
  for (let i = subcommand ? 1 : 0; i < args.length; i += 1) {
    const value = args[i]!.value;
    if (value === undefined) return `the git config argument ${args[i]!.raw} is computed at run time`;
    if (!value.startsWith("-")) continue;
    const option = value.split("=")[0]!;
    if (reads.test(option)) reading = true;
    else if (!modifiers.test(option)) return `git config ${option} changes the configuration`;
    if (option === "-f" || option === "--file") {
      const attached = value.includes("=") ? value.slice(value.indexOf("=") + 1) : undefined;
      const file = attached !== undefined ? { ...args[i]!, value: attached, raw: attached } : args[i + 1];
      if (!file) return "git config --file is missing its value";
      const problem = checker.readPath(file);
      if (problem) return problem;
      if (attached === undefined) i += 1;
    }
    if ((option === "--type" || option === "--default" || option === "--blob") && !value.includes("="))
      i += 1;
  }
  return reading ? undefined : "git config without --get or --list changes the configuration";
};
// `stash list|show` and `reflog [show]` take log and diff options: `--output=FILE` writes a file.
GIT_READ_SUBCOMMANDS.stash = (args, checker) =>
  args[0]?.value === "list" || args[0]?.value === "show"
    ? gitHistory.make(`git stash ${args[0].value}`)(args.slice(1), checker)
    : "git stash changes the working tree";
GIT_READ_SUBCOMMANDS.worktree = (args) =>
  args[0]?.value === "list" ? undefined : "git worktree changes worktrees";
GIT_READ_SUBCOMMANDS.submodule = (args) =>
  args[0]?.value === "status" ? undefined : "git submodule changes or fetches submodules";
GIT_READ_SUBCOMMANDS.reflog = (args, checker) =>
  args.length === 0 || args[0]?.value === "show" || args[0]?.value?.startsWith("-") === true
    ? args.some((w) => w.value === "expire" || w.value === "delete")
      ? "git reflog expire/delete changes the reflog"
      : gitHistory.make("git reflog")(args[0]?.value === "show" ? args.slice(1) : args, checker)
    : "git reflog with a subcommand other than show";

const GIT_GLOBAL_FLAGS = new Set(
  list(
    "--no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-replace-objects --no-advice",
  ),
);

/**
 * Where `git ARGS` looks for its repository (the `-C` directories, `--git-dir`, `--bare`), from its
 * global options. Undefined when one of them is computed at run time.
 */
export function gitStartDirs(args: readonly ShellWord[]): GitStart | undefined {
  const start: GitStart = { cDirs: [] };
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i]!;
    const value = word.value;
    if (value === undefined) return undefined;
    if (!value.startsWith("-")) break;
    if (value === "--bare") start.gitDir = "bare";
    const attached = value.startsWith("--git-dir=") ? value.slice("--git-dir=".length) : undefined;
    if (attached !== undefined) start.gitDir = { ...word, value: attached, raw: attached };
    if (value === "-C" || value === "--git-dir") {
      const dir = args[i + 1];
      if (dir?.value === undefined) return undefined;
      if (value === "-C") start.cDirs.push(dir);
      else start.gitDir = dir;
    }
    if (["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"].includes(value)) i += 1;
  }
  return start;
}

/** Whether `git ARGS` (global options included) writes the configuration (`git config core.x y`). */
export function gitWritesConfig(args: readonly ShellWord[]): boolean {
  let i = 0;
  while (i < args.length && args[i]!.value?.startsWith("-")) {
    const value = args[i]!.value!;
    i += ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"].includes(value) ? 2 : 1;
  }
  if (args[i]?.value !== "config") return args[i]?.value === undefined && i < args.length;
  const reads = GIT_READ_SUBCOMMANDS.config!(args.slice(i + 1), OPTIONS_ONLY);
  return reads !== undefined;
}

/**
 * Not `--bare` (a git directory named by the working directory, whose config could run programs:
 * it is not discovered, so neither `safe.bareRepository` nor the repository check below applies).
 */
export const git: ReadOnlyCheck = (args, checker) => {
  let i = 0;
  for (; i < args.length; i += 1) {
    const word = args[i]!;
    const value = word.value;
    if (value === undefined) return `the git argument ${word.raw} is computed at run time`;
    if (!value.startsWith("-")) break;
    if (GIT_GLOBAL_FLAGS.has(value) || value === "--exec-path" || value === "--version") continue;
    const [option, attached] = value.startsWith("--")
      ? [value.split("=")[0]!, value.includes("=") ? value.slice(value.indexOf("=") + 1) : undefined]
      : [value, undefined];
    if (option === "-C" || option === "--git-dir" || option === "--work-tree") {
      const dir = attached !== undefined ? { ...word, value: attached, raw: attached } : args[i + 1];
      if (attached === undefined) i += 1;
      if (!dir) return `git ${option} is missing its value`;
      // Which repository that makes git use is checked below, as a whole (a relative --git-dir is
      // read from the last -C directory).
      if (option !== "--git-dir") {
        const problem = checker.readPath(dir);
        if (problem) return problem;
      }
      continue;
    }
    if (option === "--namespace") {
      if (attached === undefined) i += 1;
      continue;
    }
    if (option === "-c" || option === "--config-env")
      return `git ${option} can set options that run programs`;
    if (option === "-p" || option === "--paginate") return "git -p runs a pager program";
    return `git ${option} is not in the read-only list`;
  }
  const sub = args[i]?.value;
  if (sub === undefined) return i < args.length ? "the git subcommand is computed at run time" : undefined;
  const check = GIT_READ_SUBCOMMANDS[sub];
  if (!check) return `git ${sub} is not a read-only git command`;
  const start = gitStartDirs(args.slice(0, i));
  if (!start) return "a git option is computed at run time";
  return checker.gitRepository(start) ?? check(args.slice(i + 1), checker);
};

/** `X --version` for common tools. */
export const VERSION_ONLY = list(
  "node npm npx pnpm yarn python python3 pip pip3 go cargo rustc java javac ruby gcc g++ clang make cmake tsc deno bun rg jq",
);
