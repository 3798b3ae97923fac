import { type ArgChecker, Factory, options, type ReadOnlyCheck } from "./shell-options.js";
import {
  awk,
  cd,
  find,
  git,
  jq,
  printf,
  sed,
  set,
  testCommand,
  VERSION_ONLY,
} from "./shell-readonly-tools.js";
import type { ShellWord } from "./shell-types.js";

export { type ArgChecker, type GitStart, OPTIONS_ONLY, type ReadOnlyCheck } from "./shell-options.js";
export { awkProgramIsSafe, gitStartDirs, gitWritesConfig, sedScriptIsSafe } from "./shell-readonly-tools.js";

/** A list of words written as one string. */
const list = (words: string): string[] => words.split(/\s+/).filter(Boolean);

/**
 * The built-in list of read-only shell commands, checked argument by argument.
 *
 * A command is read-only when it neither writes files, runs other programs, nor reaches the network,
 * whatever its arguments. Each entry knows which options break that (`sort -o`, `find -exec`,
 * `git -c`, `rg --pre`, `sed -i`, `awk 'system(...)'`) and which arguments are paths it reads; those
 * paths must stay inside the workspace (the caller's `readPath` decides). Anything the check cannot be
 * sure of (an argument computed at run time, an unknown option of a command with dangerous ones, a
 * glob that could expand to an option) makes the command "not read-only", which means ask.
 *
 * Network tools (curl, wget, ssh, nc, ...) are deliberately absent, as are package managers,
 * interpreters and editors.
 */

const text = options({ operands: "text", safeOptions: true });
const FOLLOWS_LINKS = {
  "-L": "follows symbolic links out of the workspace",
  "--dereference": "follows symbolic links out of the workspace",
};

/**
 * The table, built on the first shell command checked: a run that never runs one does not pay for
 * it (a few milliseconds of start-up, docs/performance.md).
 */
function buildChecks(): Map<string, ReadOnlyCheck> {
  const SPECS: Record<string, ReadOnlyCheck | Factory> = {
    cat: options({ operands: "paths", safeOptions: true }),
    head: options({
      shortValue: "nc",
      longValue: ["--lines", "--bytes"],
      operands: "paths",
      safeOptions: true,
    }),
    tail: options({
      shortValue: "ncs",
      longValue: ["--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"],
      operands: "paths",
      safeOptions: true,
    }),
    wc: options({
      longFlags: list("--bytes --chars --lines --max-line-length --words --help --version"),
      deny: { "--files0-from": "reads file names from a file" },
      operands: "paths",
    }),
    ls: options({
      shortValue: "ITw",
      longValue: list(
        "--block-size --format --hide --ignore --indicator-style --quoting-style --sort --tabsize --time --time-style --width",
      ),
      longFlags: list(
        "--all --almost-all --author --classify --color --context --dereference-command-line --dereference-command-line-symlink-to-dir --directory --dired --escape --file-type --full-time --group-directories-first --help --hide-control-chars --human-readable --hyperlink --ignore-backups --inode --kibibytes --literal --no-group --numeric-uid-gid --quote-name --recursive --reverse --show-control-chars --si --size --version --zero",
      ),
      deny: FOLLOWS_LINKS,
      operands: "paths",
    }),
    tree: options({
      shortValue: "LPIoH",
      longValue: ["--filelimit", "--timefmt", "--sort", "--charset", "--fromfile"],
      deny: {
        "-o": "writes a file",
        "-R": "writes files",
        "-l": "follows symbolic links out of the workspace",
        "--fromfile": "reads a listing from a file",
      },
      operands: "paths",
    }),
    stat: options({
      shortValue: "c",
      longValue: ["--format", "--printf"],
      operands: "paths",
      safeOptions: true,
    }),
    file: options({
      shortValue: "mfFeP",
      longValue: [
        "--magic-file",
        "--files-from",
        "--separator",
        "--exclude",
        "--exclude-quiet",
        "--parameter",
      ],
      longFlags: list(
        "--apple --brief --checking-printout --debug --dereference --extension --help --keep-going --list --mime --mime-encoding --mime-type --no-buffer --no-dereference --no-pad --no-sandbox --preserve-date --print0 --raw --special-files --version",
      ),
      deny: {
        "-C": "writes a file",
        "--compile": "writes a file",
        "-f": "reads file names from a file",
        "--files-from": "reads file names from a file",
        "-z": "runs decompression programs",
        "-Z": "runs decompression programs",
        "--uncompress": "runs decompression programs",
        "--uncompress-noreport": "runs decompression programs",
      },
      pathOptions: ["-m", "--magic-file"],
      operands: "paths",
    }),
    du: options({
      shortValue: "dBtX",
      longValue: [
        "--max-depth",
        "--block-size",
        "--threshold",
        "--exclude",
        "--exclude-from",
        "--time-style",
      ],
      longFlags: list(
        "--all --apparent-size --bytes --count-links --dereference-args --help --human-readable --inodes --no-dereference --null --one-file-system --separate-dirs --si --summarize --time --total --version",
      ),
      deny: { ...FOLLOWS_LINKS, "--files0-from": "reads file names from a file" },
      pathOptions: ["-X", "--exclude-from"],
      operands: "paths",
    }),
    df: options({
      shortValue: "tBx",
      longValue: ["--block-size", "--type", "--exclude-type"],
      operands: "paths",
      safeOptions: true,
    }),
    cut: options({
      shortValue: "bcdf",
      longValue: ["--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"],
      operands: "paths",
      safeOptions: true,
    }),
    sort: options({
      shortValue: "kStoT",
      longValue: list(
        "--key --field-separator --buffer-size --parallel --batch-size --random-source --sort --output --temporary-directory --compress-program --files0-from",
      ),
      longFlags: list(
        "--check --debug --dictionary-order --general-numeric-sort --help --human-numeric-sort --ignore-case --ignore-leading-blanks --ignore-nonprinting --merge --month-sort --numeric-sort --random-sort --reverse --stable --unique --version --version-sort --zero-terminated",
      ),
      deny: {
        "-o": "writes a file",
        "--output": "writes a file",
        "-T": "writes temporary files into a directory",
        "--temporary-directory": "writes temporary files into a directory",
        "--compress-program": "runs a program",
        "--files0-from": "reads file names from a file",
      },
      pathOptions: ["--random-source"],
      operands: "paths",
    }),
    uniq: options({
      shortValue: "fsw",
      longValue: ["--skip-fields", "--skip-chars", "--check-chars"],
      operands: "paths",
      maxOperands: 1,
      safeOptions: true,
    }),
    nl: options({ shortValue: "bdfhilnsvw", operands: "paths", safeOptions: true }),
    tac: options({ shortValue: "s", longValue: ["--separator"], operands: "paths", safeOptions: true }),
    rev: options({ operands: "paths", safeOptions: true }),
    paste: options({ shortValue: "d", longValue: ["--delimiters"], operands: "paths", safeOptions: true }),
    join: options({ shortValue: "aejot12v", operands: "paths", maxOperands: 2, safeOptions: true }),
    comm: options({ longValue: ["--output-delimiter"], operands: "paths", safeOptions: true }),
    cmp: options({
      shortValue: "in",
      longValue: ["--ignore-initial", "--bytes"],
      operands: "paths",
      safeOptions: true,
    }),
    diff: withoutDirectories(
      options({
        shortValue: "CDFIUSXLxW",
        longValue: list(
          "--ifdef --show-function-line --ignore-matching-lines --label --starting-file --exclude --exclude-from --width --tabsize --horizon-lines --to-file --from-file --line-format --old-line-format --new-line-format --unchanged-line-format --old-group-format --new-group-format --changed-group-format --unchanged-group-format --palette",
        ),
        longFlags: list(
          "--brief --color --context --ed --expand-tabs --help --ignore-all-space --ignore-blank-lines --ignore-case --ignore-file-name-case --ignore-space-change --ignore-tab-expansion --ignore-trailing-space --initial-tab --left-column --minimal --new-file --no-dereference --no-ignore-file-name-case --normal --rcs --report-identical-files --show-c-function --side-by-side --speed-large-files --strip-trailing-cr --suppress-blank-empty --suppress-common-lines --text --unidirectional-new-file --unified --version",
        ),
        deny: {
          "-l": "runs the pr program",
          "--paginate": "runs the pr program",
          "-r": "follows symbolic links out of the workspace while comparing directories",
          "--recursive": "follows symbolic links out of the workspace while comparing directories",
        },
        pathOptions: ["-X", "--exclude-from", "--to-file", "--from-file", "-S", "--starting-file"],
        operands: "paths",
      }).make("diff"),
    ),
    od: options({ shortValue: "AjNStw", operands: "paths", safeOptions: true }),
    hexdump: options({
      shortValue: "efns",
      longValue: ["--format", "--format-file", "--length", "--skip", "--color"],
      longFlags: list(
        "--one-byte-octal --one-byte-char --canonical --two-bytes-decimal --two-bytes-octal --two-bytes-hex --no-squeezing --help --version",
      ),
      pathOptions: ["-f", "--format-file"],
      operands: "paths",
    }),
    strings: options({ shortValue: "ntTe", operands: "paths", safeOptions: true }),
    grep: options({
      shortValue: "efmABCdD",
      longValue: list(
        "--regexp --file --max-count --after-context --before-context --context --directories --devices --include --exclude --exclude-dir --exclude-from --label --binary-files --group-separator",
      ),
      longFlags: list(
        "--basic-regexp --binary --byte-offset --color --colour --count --extended-regexp --files-with-matches --files-without-match --fixed-strings --help --ignore-case --initial-tab --invert-match --line-buffered --line-number --line-regexp --no-filename --no-group-separator --no-ignore-case --no-messages --null --null-data --only-matching --perl-regexp --quiet --recursive --silent --text --version --with-filename --word-regexp",
      ),
      deny: {
        "-R": "follows symbolic links out of the workspace (use -r)",
        "--dereference-recursive": "follows symbolic links out of the workspace (use -r)",
      },
      pathOptions: ["-f", "--file", "--exclude-from"],
      patternOptions: ["-e", "--regexp", "-f", "--file"],
      operands: "pattern+paths",
    }),
    rg: options({
      shortValue: "ABCEefgjMmrtTd",
      longValue: list(
        "--regexp --file --glob --iglob --max-count --after-context --before-context --context --encoding --threads --max-columns --replace --type --type-not --max-depth --maxdepth --type-add --type-clear --ignore-file --colors --color --sort --sortr --path-separator --context-separator --field-match-separator --field-context-separator --max-filesize --dfa-size-limit --regex-size-limit --engine --pre --pre-glob --hostname-bin --hyperlink-format --generate",
      ),
      deny: {
        "--pre": "runs a preprocessor program",
        "--pre-glob": "runs a preprocessor program",
        "-z": "runs decompression programs",
        "--search-zip": "runs decompression programs",
        "-L": "follows symbolic links out of the workspace",
        "--follow": "follows symbolic links out of the workspace",
        "--hostname-bin": "runs a program",
      },
      pathOptions: ["-f", "--file", "--ignore-file"],
      patternOptions: ["-e", "--regexp", "-f", "--file", "--files", "--type-list"],
      operands: "pattern+paths",
    }),
    find,
    git,
    sed,
    awk,
    gawk: awk,
    mawk: awk,
    nawk: awk,
    jq,
    md5sum: options({
      longFlags: list(
        "--binary --help --ignore-missing --quiet --status --strict --tag --text --version --warn --zero",
      ),
      deny: { "-c": "reads the files named in a list", "--check": "reads the files named in a list" },
      operands: "paths",
    }),
    tr: text,
    echo: text,
    printf,
    true: text,
    false: text,
    ":": text,
    pwd: text,
    basename: text,
    dirname: text,
    realpath: text,
    readlink: text,
    which: text,
    type: text,
    command: text,
    whoami: text,
    id: text,
    groups: text,
    logname: text,
    tty: text,
    uname: text,
    arch: text,
    nproc: text,
    uptime: text,
    locale: text,
    printenv: text,
    env: text,
    sleep: text,
    seq: text,
    expr: text,
    exit: text,
    return: text,
    test: testCommand,
    "[": testCommand,
    set,
    cd,
    date: options({
      shortValue: "dfr",
      longValue: ["--date", "--file", "--reference", "--rfc-3339"],
      longFlags: list("--debug --help --iso-8601 --resolution --rfc-email --universal --utc --version"),
      deny: { "-s": "sets the clock", "--set": "sets the clock" },
      pathOptions: ["-f", "--file", "-r", "--reference"],
      operands: "text",
    }),
    hostname: options({
      longFlags: list(
        "--alias --all-fqdns --all-ip-addresses --domain --fqdn --help --ip-address --long --nis --short --version --yp",
      ),
      deny: {
        "-F": "sets the host name",
        "--file": "sets the host name",
        "-b": "sets the host name",
        "--boot": "sets the host name",
      },
      operands: "none",
    }),
  };
  for (const sum of ["sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum"])
    SPECS[sum] = SPECS.md5sum!;
  SPECS.egrep = SPECS.grep!;
  SPECS.fgrep = SPECS.grep!;
  SPECS.dir = SPECS.ls!;

  return new Map<string, ReadOnlyCheck>(
    Object.entries(SPECS).map(([name, spec]) => [name, spec instanceof Factory ? spec.make(name) : spec]),
  );
}

let checks: Map<string, ReadOnlyCheck> | undefined;
const readOnlyChecks = (): Map<string, ReadOnlyCheck> => (checks ??= buildChecks());

/**
 * `diff DIR …` compares the files in DIR, following symbolic links out of the workspace as `-r`
 * does (one level down): a directory operand, or `--from-file`/`--to-file` value, is not read-only.
 */
function withoutDirectories(check: ReadOnlyCheck): ReadOnlyCheck {
  return (args, checker) => {
    for (const word of args) {
      const value = word.value;
      if (value === undefined) continue; // refused by `check`
      const path = /^--(from|to)-file=/.test(value)
        ? value.slice(value.indexOf("=") + 1)
        : value.startsWith("-")
          ? undefined
          : value;
      if (path !== undefined && checker.isDirectory(path))
        return `diff of the directory ${path} compares the files in it, following symbolic links out of the workspace`;
    }
    return check(args, checker);
  };
}

/** Names on the built-in read-only list. */
export function readOnlyCommandNames(): string[] {
  return [...readOnlyChecks().keys()].sort();
}

/**
 * Whether `words` (a command with static name) is read-only. `undefined` when it is; otherwise the
 * reason, for the "ask" message.
 */
export function checkReadOnlyCommand(words: readonly ShellWord[], checker: ArgChecker): string | undefined {
  const name = words[0]?.value;
  if (name === undefined) return "the command name is computed at run time";
  const args = words.slice(1);
  if (args.length === 1 && args[0]!.value === "--version" && VERSION_ONLY.includes(name)) return undefined;
  const check = readOnlyChecks().get(name);
  if (!check) return `shell command \`${name}\` is not in the read-only list`;
  return check(args, checker);
}
