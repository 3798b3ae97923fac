import { type Dirent, lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The one place that knows what a wildcard is. Two pattern languages meet in cairn, on purpose:
 *
 * - **Shell patterns** (`ls src/*.ts`, `find . ?exec`): what bash (or dash, for `sh -c`) does with an
 *   unquoted word, with the shells' default options — no `extglob`, no `globstar` (`**` is `*`), no
 *   `dotglob` (a leading `.` must be written), no `nocaseglob`, no `nullglob` (no match leaves the
 *   word as written). `[!x]` negates in both shells; `[^x]` negates in bash only (dash reads `^` as a
 *   member). The permission checker expands a word exactly as the shell will, so it judges the words
 *   the command really gets (`shellPattern*`, `expandShellPattern`).
 * - **Tool and rule globs** (the Glob tool's `pattern`, `Read(src/**)` rules): picomatch syntax, where
 *   `**` crosses directories and `{a,b}`, `@(x)`, `!(x)` are wildcards too. `TOOL_GLOB_SPECIAL` and
 *   `literalLeadingDirectory` give the directory such a pattern names; the directory the Glob tool
 *   really reads is tinyglobby's to say (src/tools/glob-search.ts).
 */

/** Characters that make a segment of a tool or rule glob (picomatch syntax) a wildcard. */
export const TOOL_GLOB_SPECIAL = /[*?[\]{}()!+@]/;

/**
 * The leading segments of `pattern` that contain no wildcard (`src/lib` of `src/lib/**\/*.ts`), and
 * the rest. `isWildcard` says what a wildcard segment is in the pattern's language.
 */
export function literalLeadingDirectory(
  pattern: string,
  isWildcard: (segment: string) => boolean,
): { fixed: string[]; rest: string[] } {
  const segments = pattern.split("/");
  let fixed = 0;
  while (fixed < segments.length - 1 && !isWildcard(segments[fixed]!)) fixed += 1;
  return { fixed: segments.slice(0, fixed), rest: segments.slice(fixed) };
}

export const isToolGlobWildcard = (segment: string): boolean => TOOL_GLOB_SPECIAL.test(segment);

// ---------------------------------------------------------------------------------------------------
// Shell patterns. A pattern is the word's text with every quoted character escaped by a backslash
// (`'*'x*` is `\*x*`), as bash itself keeps it before globbing.
// ---------------------------------------------------------------------------------------------------

export type ShellDialect = "bash" | "dash";

type Token =
  | { kind: "literal"; char: string }
  | { kind: "any" }
  | { kind: "one" }
  | { kind: "set"; negate: boolean; test: (char: string) => boolean };

/** Whether a shell pattern has an unescaped `*`, `?` or a complete `[...]`. */
export function shellPatternHasWildcard(pattern: string, dialect: ShellDialect = "bash"): boolean {
  return pattern.split("/").some((segment) => tokenize(segment, dialect).some((t) => t.kind !== "literal"));
}

/** A pattern with escapes removed: the word bash passes on when nothing matches. */
export function unescapeShellPattern(pattern: string): string {
  return pattern.replace(/\\([\s\S])/g, "$1");
}

/** Quotes every character that is special in a shell pattern (for quoted text). */
export function escapeShellPattern(text: string): string {
  return text.replace(/[\\*?[\]]/g, "\\$&");
}

/**
 * A test for one file name against one segment of a shell pattern (`*.ts`, `[!.]*`). A name with
 * non-ASCII characters matches, for bash, when it matches character by character (a UTF-8 locale)
 * or byte by byte (the C locale): the checker judges the larger set. dash always matches bytes.
 */
export function shellSegmentMatcher(segment: string, dialect: ShellDialect): (name: string) => boolean {
  const tokens = tokenize(segment, dialect);
  const byteTokens = tokenize(asBytes(segment), dialect);
  // A leading dot must be matched by a literal dot, never by `*`, `?` or a bracket.
  const literalDot = tokens[0]?.kind === "literal" && tokens[0].char === ".";
  return (name) => {
    if (name.startsWith(".") && !literalDot) return false;
    if (dialect === "bash" && matchTokens(tokens, 0, [...name], 0)) return true;
    if (dialect === "bash" && /^[\x00-\x7f]*$/.test(name)) return false;
    return matchTokens(byteTokens, 0, [...asBytes(name)], 0);
  };
}

/** Each UTF-8 byte of `text` as one character. */
function asBytes(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** Whether some file name matching this segment could start with `-` (an option once expanded). */
export function shellSegmentCanStartWithDash(segment: string, dialect: ShellDialect): boolean {
  const first = tokenize(segment, dialect)[0];
  if (!first) return false;
  if (first.kind === "literal") return first.char === "-";
  if (first.kind === "set") return first.test("-") !== first.negate;
  return true;
}

function matchTokens(tokens: Token[], ti: number, chars: string[], ci: number): boolean {
  for (; ti < tokens.length; ti += 1) {
    const token = tokens[ti]!;
    if (token.kind === "any") {
      for (let skip = chars.length; skip >= ci; skip -= 1)
        if (matchTokens(tokens, ti + 1, chars, skip)) return true;
      return false;
    }
    const char = chars[ci];
    if (char === undefined) return false;
    if (token.kind === "literal" && token.char !== char) return false;
    if (token.kind === "set" && token.test(char) === token.negate) return false;
    ci += 1;
  }
  return ci === chars.length;
}

/**
 * The POSIX character classes (`[[:alpha:]]`), made on first use: the bundle turns some of these
 * literals into `new RegExp(…)` calls, and building the Unicode property sets cost about 0.7 ms at
 * every start of the CLI, which rarely meets a bracket class.
 */
let characterClasses: Record<string, RegExp> | undefined;
function characterClass(name: string): RegExp | undefined {
  characterClasses ??= {
    alpha: /^\p{Alphabetic}$/u,
    digit: /^[0-9]$/,
    alnum: /^[\p{Alphabetic}0-9]$/u,
    upper: /^\p{Lu}$/u,
    lower: /^\p{Ll}$/u,
    space: /^\s$/,
    blank: /^[ \t]$/,
    punct: /^[!-/:-@[-`{-~]$/,
    print: /^[^\p{Cc}]$/u,
    graph: /^[^\p{Cc}\s]$/u,
    cntrl: /^\p{Cc}$/u,
    xdigit: /^[0-9A-Fa-f]$/,
    word: /^[\p{Alphabetic}0-9_]$/u,
  };
  return Object.hasOwn(characterClasses, name) ? characterClasses[name] : undefined;
}

function tokenize(segment: string, dialect: ShellDialect): Token[] {
  const chars = [...segment];
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i]!;
    if (char === "\\") {
      i += 1;
      tokens.push({ kind: "literal", char: chars[i] ?? "\\" });
    } else if (char === "*") {
      // `**` is `*` without globstar; consecutive stars match the same.
      if (tokens.at(-1)?.kind !== "any") tokens.push({ kind: "any" });
    } else if (char === "?") {
      tokens.push({ kind: "one" });
    } else if (char === "[") {
      const bracket = parseBracket(chars, i, dialect);
      if (bracket) {
        tokens.push(bracket.token);
        i = bracket.end;
      } else {
        tokens.push({ kind: "literal", char });
      }
    } else {
      tokens.push({ kind: "literal", char });
    }
  }
  return tokens;
}

/** `[...]` starting at `start`; undefined when it does not close (the `[` is then literal). */
function parseBracket(
  chars: string[],
  start: number,
  dialect: ShellDialect,
): { token: Token; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (chars[i] === "!" || (dialect === "bash" && chars[i] === "^")) {
    negate = true;
    i += 1;
  }
  const tests: ((char: string) => boolean)[] = [];
  let first = true;
  for (; i < chars.length; i += 1) {
    let char = chars[i]!;
    if (char === "]" && !first) return { token: { kind: "set", negate, test: anyOf(tests) }, end: i };
    first = false;
    // Collating symbols and equivalence classes are bash's; dash knows only classes.
    const kinds = dialect === "bash" ? [":", ".", "="] : [":"];
    if (char === "[" && kinds.includes(chars[i + 1] ?? "")) {
      const kind = chars[i + 1]!;
      const close = findClose(chars, i + 2, `${kind}]`);
      if (close !== -1) {
        const name = chars.slice(i + 2, close).join("");
        i = close + 1;
        if (kind === ":") {
          const cls = characterClass(name);
          tests.push(cls ? (c) => cls.test(c) : () => false);
        } else {
          tests.push((c) => c === name);
        }
        continue;
      }
    }
    if (char === "\\" && i + 1 < chars.length) {
      i += 1;
      char = chars[i]!;
    }
    if (chars[i + 1] === "-" && chars[i + 2] !== undefined && chars[i + 2] !== "]") {
      let high = chars[i + 2]!;
      i += 2;
      if (high === "\\" && i + 1 < chars.length) {
        i += 1;
        high = chars[i]!;
      }
      const lo = char.codePointAt(0)!;
      const hi = high.codePointAt(0)!;
      tests.push((c) => c.codePointAt(0)! >= lo && c.codePointAt(0)! <= hi);
      continue;
    }
    const literal = char;
    tests.push((c) => c === literal);
  }
  return undefined;
}

function findClose(chars: string[], from: number, close: string): number {
  for (let i = from; i + 1 < chars.length; i += 1) if (chars[i] + chars[i + 1]! === close) return i;
  return -1;
}

function anyOf(tests: ((char: string) => boolean)[]): (char: string) => boolean {
  return (char) => tests.some((test) => test(char));
}

export type ShellExpansion =
  /** `names` empty: nothing matched, the shell passes the word on as written. */
  { names: string[] } | { tooMany: true };

/**
 * The names an unquoted shell word expands to, relative to `cwd` (absolute when the pattern is),
 * sorted by code unit (the shell sorts by locale: callers must not depend on the order). One
 * directory level per segment; `.` and `..` are offered to patterns with a leading dot, as dash and
 * bash before 5.2 match them (a superset of bash 5.2, which skips them). Symbolic links are listed,
 * for their targets to be checked by the caller.
 */
export function expandShellPattern(
  pattern: string,
  cwd: string,
  options: { dialect: ShellDialect; max: number },
): ShellExpansion {
  const absolute = pattern.startsWith("/");
  const segments = pattern.split("/").filter((segment, i) => segment !== "" || i === 0);
  if (absolute) segments.shift();
  let current = [absolute ? "/" : ""];
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    const next: string[] = [];
    const wildcard = tokenize(segment, options.dialect).some((t) => t.kind !== "literal");
    for (const prefix of current) {
      const dir = path.resolve(cwd, prefix || ".");
      if (!wildcard) {
        const joined = join(prefix, unescapeShellPattern(segment));
        if (exists(path.resolve(cwd, joined), !last)) next.push(joined);
        continue;
      }
      const matches = shellSegmentMatcher(segment, options.dialect);
      for (const name of [".", "..", ...listNames(dir, last)]) {
        if (!matches(name)) continue;
        next.push(join(prefix, name));
        if (next.length > options.max) return { tooMany: true };
      }
    }
    current = next;
  }
  return { names: current.sort() };
}

function join(prefix: string, name: string): string {
  if (prefix === "") return name;
  return prefix.endsWith("/") ? `${prefix}${name}` : `${prefix}/${name}`;
}

/** Names in `dir`; directories only (links to them included) unless it is the last segment. */
function listNames(dir: string, last: boolean): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter(
      (entry) =>
        last || entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path.join(dir, entry.name))),
    )
    .map((entry) => entry.name);
}

function exists(p: string, directory: boolean): boolean {
  if (directory) return isDirectory(p);
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
