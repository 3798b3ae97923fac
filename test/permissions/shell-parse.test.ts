// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates
import { describe, expect, test } from "vitest";
import {
  awkProgramIsSafe,
  parseShell,
  type ShellPart,
  sedScriptIsSafe,
} from "../../src/permissions/index.js";

/** A compact view of the parts: commands as their words (`<raw>` when computed), redirects, the rest. */
function view(command: string): string[] {
  const parsed = parseShell(command, { home: "/home/u" });
  if (!parsed.ok) return [`error: ${parsed.error}`];
  return parsed.parts.map((part: ShellPart) => {
    const via = part.parent !== undefined ? `^${part.parent} ` : "";
    switch (part.kind) {
      case "command":
        return `${via}cmd ${part.words.map((w) => w.value ?? `<${w.raw}>`).join(" ")}`;
      case "redirect":
        return `${via}redir ${part.fd ?? ""}${part.op} ${part.target.value ?? `<${part.target.raw}>`}`;
      case "assign":
        return `${via}assign ${part.name}`;
      default:
        return `${via}construct ${part.what}`;
    }
  });
}

describe("every sub-command becomes its own part", () => {
  test.each([
    ["git status; rm -rf x", ["cmd git status", "cmd rm -rf x"]],
    ["a && b || c | d |& e & f", ["cmd a", "cmd b", "cmd c", "cmd d", "cmd e", "cmd f"]],
    ["echo $(curl x) `id`", ["cmd curl x", "cmd id", "cmd echo <$(curl x)> <`id`>"]],
    ["(a; b) && { c; }", ["cmd a", "cmd b", "cmd c"]],
    ["if a; then b; elif c; then d; else e; fi", ["cmd a", "cmd b", "cmd c", "cmd d", "cmd e"]],
    ["while a; do b; done; until c; do d; done", ["cmd a", "cmd b", "cmd c", "cmd d"]],
    ["for x in $(a); do b; done", ["assign x", "cmd a", "cmd b"]],
    ["select PS4 in a; do b; done", ["assign PS4", "cmd b"]],
    ["case $(a) in $(b)) c;; esac", ["cmd a", "cmd b", "cmd c"]],
    ["f() { rm x; }; f", ["cmd rm x", "cmd f"]],
    ["diff <(a) >(b)", ["cmd a", "cmd b", "cmd diff <<(a)> <>(b)>"]],
    ["echo ${x:-$(a)} ${y/$(b)/$(c)}", ["cmd a", "cmd b", "cmd c", "cmd echo <${x:-$(a)}> <${y/$(b)/$(c)}>"]],
    ["cat <<EOF\n$(a)\nEOF", ["cmd cat", "cmd a", "redir << EOF"]],
    ["x=$(a) y=1", ["cmd a", "assign x", "assign y"]],
    ["[[ $(a) == b ]]", ["cmd a"]],
    ["time a", ["cmd a"]],
    ["! a", ["cmd a"]],
  ])("%j", (command, expected) => {
    expect(view(command)).toEqual(expected);
  });

  test("${x:offset:length} is searched too (the library's own walker skips it)", () => {
    const parts = view("echo ${x:$(a):$(b)}");
    expect(parts.filter((line) => line.startsWith("cmd"))).toEqual([
      "cmd a",
      "cmd b",
      "cmd echo <${x:$(a):$(b)}>",
    ]);
    expect(parts).toContain("construct arithmetic on variables");
  });
});

describe("redirections and their targets", () => {
  test.each([
    ["ls > out", ["cmd ls", "redir > out"]],
    ["ls >> out 2>&1", ["cmd ls", "redir >> out", "redir 2>& 1"]],
    ["ls &> out", ["cmd ls", "redir &> out"]],
    ["ls >| out", ["cmd ls", "redir >| out"]],
    ["cat < in 3<> rw", ["cmd cat", "redir < in", "redir 3<> rw"]],
    ["{ ls; } > out", ["cmd ls", "redir > out"]],
    ["ls > ~/x", ["cmd ls", "redir > /home/u/x"]],
    ["ls > $F", ["cmd ls", "redir > <$F>"]],
  ])("%j", (command, expected) => {
    expect(view(command)).toEqual(expected);
  });
});

describe("wrappers are unwrapped; the inner command points at its wrapper", () => {
  test.each([
    ["sh -c 'ls; rm x'", ["cmd sh -c ls; rm x", "^0 cmd ls", "^0 cmd rm x"]],
    ['bash -lc "git log | head"', ["cmd bash -lc git log | head", "^0 cmd git log", "^0 cmd head"]],
    [
      "env A=1 nice -n 5 timeout 3 ls",
      [
        "cmd env A=1 nice -n 5 timeout 3 ls",
        "^0 cmd nice -n 5 timeout 3 ls",
        "^1 cmd timeout 3 ls",
        "^2 cmd ls",
      ],
    ],
    ["xargs -0 rm -f", ["cmd xargs -0 rm -f", "^0 cmd rm -f <<xargs input>>"]],
    ["xargs -I{} cp {} dst", ["cmd xargs -I{} cp {} dst", "^0 cmd cp <{}> dst"]],
    ["sudo -u root rm x", ["cmd sudo -u root rm x", "^0 cmd rm x"]],
    [
      "find . -exec rm {} \\; -exec ls +",
      ["cmd find . -exec rm {} ; -exec ls +", "^0 cmd rm <{}>", "^0 cmd ls"],
    ],
    ["command rm x", ["cmd command rm x", "^0 cmd rm x"]],
    ["exec rm x", ["cmd exec rm x", "^0 cmd rm x"]],
    ["nohup rm x", ["cmd nohup rm x", "^0 cmd rm x"]],
    ["eval 'a; b'", ["cmd eval a; b", "^0 cmd a", "^0 cmd b"]],
    ["/usr/bin/env rm x", ["cmd /usr/bin/env rm x", "^0 cmd rm x"]],
    ["sh -c 'sh -c \"rm x\"'", ['cmd sh -c sh -c "rm x"', "^0 cmd sh -c rm x", "^1 cmd rm x"]],
  ])("%j", (command, expected) => {
    expect(view(command)).toEqual(expected);
  });

  test("wrapper transparency", () => {
    const parts = (command: string) => {
      const parsed = parseShell(command);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.parts;
    };
    const wrapper = (command: string) =>
      parts(command)[0]!.kind === "command"
        ? (parts(command)[0] as { wrapper?: unknown }).wrapper
        : undefined;
    expect(wrapper("timeout 5 ls")).toEqual({ name: "timeout", transparent: true });
    expect(wrapper("sudo ls")).toMatchObject({ name: "sudo", transparent: false });
    expect(wrapper("./timeout 5 ls")).toMatchObject({ name: "timeout", transparent: false });
    expect(wrapper('sh -c "$X"')).toMatchObject({
      transparent: false,
      problem: "sh -c runs a script computed at run time",
    });
    expect(wrapper("bash -i -c ls")).toMatchObject({ transparent: false });
    expect(wrapper("bash script.sh")).toMatchObject({
      transparent: false,
      hidden: true,
      problem: "bash runs the script file script.sh, which cannot be checked",
    });
    expect(wrapper("command -v ls")).toBeUndefined();
  });
});

describe("words: quotes removed, ~ expanded, computed parts marked", () => {
  test.each([
    ["echo 'a b' \"c d\" e\\ f", "cmd echo a b c d e f"],
    ["echo $'a\\tb'", "cmd echo a\tb"],
    ['echo "x$HOME"', 'cmd echo <"x$HOME">'],
    ["cat ~/x ~ a~b", "cmd cat /home/u/x /home/u a~b"],
    ["cat ~root/x", "cmd cat <~root/x>"],
    ['cat "~/x"', "cmd cat ~/x"],
    ["r''m x", "cmd rm x"],
    ["\\rm x", "cmd rm x"],
  ])("%j", (command, expected) => {
    expect(view(command)).toEqual([expected]);
  });

  test("globs and braces are flagged", () => {
    const parsed = parseShell("ls *.ts '*.md' {a,b} \\*");
    if (!parsed.ok) throw new Error(parsed.error);
    const command = parsed.parts[0]!;
    if (command.kind !== "command") throw new Error("not a command");
    expect(command.words.slice(1).map((w) => [w.value, w.glob, w.brace])).toEqual([
      ["*.ts", true, false],
      ["*.md", false, false],
      ["{a,b}", false, true],
      ["*", false, false],
    ]);
  });
});

describe("constructs that cannot be judged statically", () => {
  test.each([
    ["echo $((x + 1))", "arithmetic on variables"],
    ["(( i++ ))", "arithmetic on variables"],
    ["let x=y+1", "arithmetic on variables"],
    ["echo ${!ref}", "an indirect expansion"],
    ["[[ $a -eq 1 ]]", "an arithmetic test"],
    ["[[ -v a ]]", "a variable test"],
    ["declare -n ref=x", "evaluate their values"],
    ["coproc ls", "coprocess"],
  ])("%j", (command, fragment) => {
    expect(view(command).some((line) => line.startsWith("construct") && line.includes(fragment))).toBe(true);
  });

  test('plain arithmetic and "${arr[@]}" are fine', () => {
    expect(view('echo $((1 + 2)) "${arr[@]}"').some((line) => line.startsWith("construct"))).toBe(false);
  });
});

describe("what cannot be parsed is reported, not guessed", () => {
  test.each(["echo 'x", "if then fi", "echo $((", "a |", 'echo "x', "(ls", "x\u0000y"])("%j", (command) => {
    expect(parseShell(command).ok).toBe(false);
  });

  test("very long or very deeply nested input is refused", () => {
    expect(parseShell(`echo ${"a".repeat(200_000)}`).ok).toBe(false);
    let nested = "ls";
    for (let i = 0; i < 10; i += 1) nested = `sh -c ${JSON.stringify(nested)}`;
    expect(parseShell(nested).ok).toBe(false);
  });

  test("the parser library leaves no globals behind", () => {
    parseShell("ls");
    expect(Error.stackTraceLimit).not.toBe(Number.POSITIVE_INFINITY);
    expect(Object.hasOwn(globalThis, "require")).toBe(false);
  });
});

describe("script checkers", () => {
  test.each([
    ["1,10p", true],
    ["s/a/b/g", true],
    ["s|a/b|c|", true],
    ["/foo/d; $p", true],
    ["-n", false],
    ["s/a/b/w out", false],
    ["s/a/b/e", false],
    ["1e id", false],
    ["r /etc/passwd", false],
    ["w out", false],
    ["1,5{p}", true],
    ["y/abc/xyz/", true],
  ])("sed %j safe=%s", (script, safe) => {
    expect(sedScriptIsSafe(script)).toBe(safe);
  });

  test.each([
    ["{print $1}", true],
    ["NR>1", false],
    ['{system("id")}', false],
    ['{print | "sh"}', false],
    ['{"date" | getline d}', false],
    ["BEGIN { x = 1 }", true],
  ])("awk %j safe=%s", (program, safe) => {
    expect(awkProgramIsSafe(program)).toBe(safe);
  });
});
