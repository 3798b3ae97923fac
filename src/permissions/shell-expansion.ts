import {
  expandShellPattern,
  type ShellDialect,
  shellPatternHasWildcard,
  shellSegmentCanStartWithDash,
} from "../util/glob.js";
import type { ShellCommandPart, ShellPart, ShellWord } from "./shell-types.js";

/**
 * The words a command really gets: unquoted patterns expanded the way the shell that runs the part
 * will expand them (src/util/glob.ts), in every directory the command may run in. A name that
 * starts with `-` is refused wherever it lands — it would be read as an option (a file named
 * `-exec` turns `find . ?exec sh {} ;` into `find . -exec sh {} ;`).
 */

const MAX_MATCHES = 1000;

/**
 * Whether a part of the line may create files before another part's patterns are expanded (parts
 * of a pipeline run at once): an output redirection to a file, or a command that is not read-only
 * (`isReadOnly` judges a command's words the way the read-only list does).
 */
export function lineMayCreateFiles(
  parts: readonly ShellPart[],
  isReadOnly: (part: ShellCommandPart) => boolean,
  harmlessTargets: ReadonlySet<string>,
): boolean {
  return parts.some((part) => {
    if (part.kind === "redirect") {
      const target = part.target.value ?? "";
      return part.op.includes(">") && !harmlessTargets.has(target) && !/^(\d+-?|-)$/.test(target);
    }
    return part.kind === "command" && (part.wrapper !== undefined || !isReadOnly(part));
  });
}

export type Expanded = { words: ShellWord[]; problem?: string };

/** Expands the pattern words of `part` relative to each of `bases`. */
export function expandCommandWords(
  part: ShellCommandPart,
  bases: readonly string[],
  mayCreateFiles: boolean,
): Expanded {
  const out: ShellWord[] = [];
  const name = part.words[0]?.value ?? part.words[0]?.raw ?? "the command";
  const dialects = dialectsOf(part);
  for (const [i, word] of part.words.entries()) {
    // `{-exec,sh,{},;}` and `--{output,x}=y` become options once braces are expanded.
    if (i > 0 && word.brace && word.value !== undefined && /^[-{]/.test(word.value))
      return { words: part.words, problem: `the brace expansion ${word.raw} could produce options` };
    const pattern = word.pattern;
    if (!word.glob || pattern === undefined || !dialects.some((d) => shellPatternHasWildcard(pattern, d))) {
      out.push(word);
      continue;
    }
    if (i === 0) {
      // A command name found by a pattern: computed at run time.
      const { value: _, ...computed } = word;
      out.push(computed);
      continue;
    }
    const names = expandEverywhere(pattern, bases, dialects);
    if (typeof names === "string") return { words: part.words, problem: `the pattern ${word.raw} ${names}` };
    const option = names.find((n) => n.startsWith("-"));
    if (option)
      return {
        words: part.words,
        problem: `the pattern ${word.raw} expands to ${option}, which ${name} would read as an option`,
      };
    const first = pattern.split("/")[0]!;
    if (mayCreateFiles && dialects.some((d) => shellSegmentCanStartWithDash(first, d)))
      return {
        words: part.words,
        problem: `the pattern ${word.raw} could expand to the name of a file this command line creates, read as an option (write ./${word.raw} instead)`,
      };
    if (names.length === 0) out.push({ ...word, glob: false });
    for (const match of names)
      out.push({ raw: match, value: match, glob: false, brace: false, procSubst: false, fromGlob: true });
  }
  return { words: out };
}

/** `sh` may be dash or bash: its words must mean the same to both. */
function dialectsOf(part: ShellCommandPart): ShellDialect[] {
  return part.shell === "sh" ? ["bash", "dash"] : ["bash"];
}

function expandEverywhere(
  pattern: string,
  bases: readonly string[],
  dialects: ShellDialect[],
): string[] | string {
  let agreed: string[] | undefined;
  for (const base of bases) {
    for (const dialect of dialects) {
      const result = expandShellPattern(pattern, base, { dialect, max: MAX_MATCHES });
      if ("tooMany" in result) return "matches too many files to check";
      if (agreed === undefined) agreed = result.names;
      else if (agreed.join("\0") !== result.names.join("\0"))
        return bases.length > 1
          ? "expands differently in the directories the command may run in"
          : "expands differently in sh (dash) and bash";
    }
  }
  return agreed ?? [];
}

/** The words of `part` as rules see them when every pattern or brace word could be anything. */
export function patternsUnknown(part: ShellCommandPart): ShellWord[] {
  const dialects = dialectsOf(part);
  return part.words.map((word) => {
    const pattern = word.pattern;
    const wildcard = pattern !== undefined && dialects.some((d) => shellPatternHasWildcard(pattern, d));
    if (!wildcard && !word.brace) return word;
    const { value: _, ...computed } = word;
    return computed;
  });
}

/**
 * Every text in `words` (after the command name) that may name a file the command writes: the word
 * itself, the value of `--opt=value` and `name=value` (`dd of=x`), the rest of a short cluster
 * (`-o.git/config`).
 */
export function pathCandidates(words: readonly ShellWord[]): string[] {
  const out: string[] = [];
  for (const word of words.slice(1)) {
    const value = word.value;
    if (value === undefined || value === "") continue;
    out.push(value);
    const eq = value.indexOf("=");
    if (eq > 0) out.push(value.slice(eq + 1));
    if (/^-[^-]./.test(value)) out.push(value.slice(2));
  }
  return [...new Set(out.filter((text) => text !== "" && !text.startsWith("-")))];
}
