// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { parseShell, type ShellCommandPart } from "../../src/permissions/index.js";
import { expandCommandWords } from "../../src/permissions/shell-expansion.js";
import { gateFor, makeFixture } from "./fixture.js";

/**
 * The grammar print mode allows without a rule is kept only where bash itself agrees: every
 * command line below is allowed, then run by real bash with `set -x` (its trace prints every
 * simple command it runs, with the words after expansion, quoted so they read back the same). Every
 * traced command must be one the checker judged, word for word — bash ran nothing the checker did
 * not see. One line per construct the checker keeps.
 */

const fx = makeFixture();
afterAll(() => fx.cleanup());

const KEPT: [construct: string, line: string][] = [
  ["pipes", "ls -la src | sort -k5 | head -3"],
  ["&& || ;", "ls src && pwd || echo no; echo done"],
  ["quotes and escapes", `echo 'a b' "c d" e\\ f "g\\"h" 'i'"j"`],
  ["$'...'", "echo $'tab\\there'"],
  ["command substitution", "echo $(pwd) `pwd`"],
  ["nested substitution in quotes", 'echo "$(echo "nested $(pwd)")"'],
  ["subshell", "(cd src && ls)"],
  ["group", "{ ls; pwd; }"],
  ["if/else", "if [ -f README.md ]; then cat README.md; else echo none; fi"],
  ["for over a pattern", "for f in src/*.ts; do echo $f; done"],
  ["for over words", "for i in 1 2; do echo $i; done"],
  ["while", "while false; do echo never; done; echo after"],
  ["case", "case x in x) echo yes;; *) echo no;; esac"],
  ["here-document", "cat <<EOF\nhello $(pwd)\nEOF"],
  ["quoted here-document", "cat <<'EOF'\nhello $(pwd)\nEOF"],
  ["here-string", "cat <<< hello"],
  ["parameter defaults", "echo ${HOME:-none} ${unset_var:-$(pwd)}"],
  ["[[ ]]", "[[ -d src ]] && ls src"],
  ["redirections to /dev/null", "ls > /dev/null 2>&1; ls src 2>/dev/null"],
  ["descriptor copies", "ls src 2>&1 | cat"],
  ["process substitution", "diff <(ls src) <(ls src)"],
  ["tilde", "echo ~ ~/x"],
  ["literal arithmetic", "echo $((1 + 2 * 3))"],
  ["cd followed", "cd src && cat a.ts; ls"],
  ["patterns", "wc -l src/*.ts; cat ./*.md; ls src/[ab].ts src/?.ts"],
  ["sh -c", "sh -c 'ls src | wc -l'"],
  ["bash -c", 'bash -c "echo \\"x y\\""'],
  ["transparent wrappers", "timeout 5 ls; nice ls; env LC_ALL=C sort src/a.ts"],
  ["lowercase assignment", "x=1; echo $x"],
  ["printf", "printf '%s\\n' a b"],
  ["set -euo pipefail", "set -euo pipefail; ls"],
  ["brace expansion in echo", "echo x{a,b} y{1..3}"],
];

/** A word of a judged command as a matcher: static words match exactly, the rest match any run of words. */
type Judged = { words: (string | undefined)[] };

function judgedCommands(line: string): Judged[] {
  const parsed = parseShell(line, { home: fx.home });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.parts
    .filter((part): part is ShellCommandPart => part.kind === "command")
    .map((part) => ({
      words: expandCommandWords(part, [fx.ws], false).words.map((word) =>
        word.brace || word.procSubst ? undefined : word.value,
      ),
    }));
}

function matches(judged: readonly (string | undefined)[], traced: readonly string[]): boolean {
  const [head, ...rest] = judged;
  if (judged.length === 0) return traced.length === 0;
  if (head !== undefined) return traced[0] === head && matches(rest, traced.slice(1));
  for (let take = 0; take <= traced.length; take += 1) if (matches(rest, traced.slice(take))) return true;
  return false;
}

/** The simple commands bash ran, as words (the trace quotes them so the parser reads them back). */
function tracedCommands(line: string): string[][] {
  const trace = path.join(fx.base, "trace");
  const script = `exec 3>${trace}; BASH_XTRACEFD=3; set -x\n${line}`;
  spawnSync("bash", ["-c", script], {
    cwd: fx.ws,
    env: { PATH: process.env.PATH, HOME: fx.home },
    stdio: "ignore",
  });
  const out: string[][] = [];
  for (const raw of readFileSync(trace, "utf8").split("\n")) {
    const text = raw.replace(/^\++ /, "");
    // Compound headers and tests are traced too; they are not commands.
    if (
      text === "" ||
      /^(for|case|select|\[\[|\(\()( |$)/.test(text) ||
      /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)
    )
      continue;
    const parsed = parseShell(text, { home: fx.home });
    if (!parsed.ok) throw new Error(`${text}: ${parsed.error}`);
    const command = parsed.parts.find((part) => part.kind === "command");
    if (command?.kind === "command") out.push(command.words.map((word) => word.value ?? word.raw));
  }
  return out;
}

describe("what print mode allows, bash reads the same way", () => {
  test.each(KEPT)("%s", (_construct, line) => {
    expect(gateFor(fx).evaluate("Bash", { command: line }).behavior).toBe("allow");
    const judged = judgedCommands(line);
    const traced = tracedCommands(line);
    expect(traced.length).toBeGreaterThan(0);
    for (const words of traced)
      expect(
        judged.some((j) => matches(j.words, words)),
        `bash ran ${JSON.stringify(words)}; judged: ${JSON.stringify(judged.map((j) => j.words))}`,
      ).toBe(true);
  });
});
