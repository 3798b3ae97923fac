// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { gateFor, makeFixture } from "./fixture.js";

const fx = makeFixture();
afterAll(() => fx.cleanup());

/**
 * The print-mode default (acceptEdits, no --force, headless) with a few rules in both spellings.
 * "ask" is what an approver would be asked; headless it means deny.
 */
const RULES = {
  deny: ["Bash(rm:*)", "Read(.env)", "Write(secrets/**)"],
  ask: ["Bash(git push:*)"],
  allow: ["Bash(npm run test:*)", "Shell(make)"],
};

type Expected = "allow" | "ask" | "deny";

const TABLE: [string, Expected][] = [
  // --- read-only commands, checked argument by argument --------------------------------------------
  ["ls", "allow"],
  ["ls -la src", "allow"],
  ["pwd", "allow"],
  ["echo hello", "allow"],
  ["echo \"a b\" 'c'", "allow"],
  ["cat src/a.ts", "allow"],
  ["head -n 20 src/a.ts", "allow"],
  ["tail -5 src/a.ts", "allow"],
  ["wc -l src/a.ts src/b.ts", "allow"],
  ["wc -l src/*.ts", "allow"],
  ["grep -rn TODO src", "allow"],
  ["grep -e foo -- src/a.ts", "allow"],
  ["grep -r /api/ src", "allow"],
  ["rg foo src", "allow"],
  ["rg --files src", "allow"],
  ["rg -n 'fn main' -g '*.rs'", "allow"],
  ["git status", "allow"],
  ["git status --porcelain", "allow"],
  ["git diff", "allow"],
  ["git diff --stat HEAD~1", "allow"],
  ["git log --oneline -10", "allow"],
  ["git log -p -- src/a.ts", "allow"],
  ["git show HEAD", "allow"],
  ["git branch", "allow"],
  ["git branch -a", "allow"],
  ["git tag -l", "allow"],
  ["git remote -v", "allow"],
  ["git rev-parse HEAD", "allow"],
  ["git ls-files", "allow"],
  ["git blame src/a.ts", "allow"],
  ["git config --get user.name", "allow"],
  ["git -C src status", "allow"],
  ["git --no-pager log", "allow"],
  ["git grep -n TODO", "allow"],
  ["git stash list", "allow"],
  ["find . -name '*.ts'", "allow"],
  ["find src -type f -newer src/a.ts", "allow"],
  ["find . -maxdepth 2 -print0", "allow"],
  ["sort src/a.ts", "allow"],
  ["sort -u -k2 src/a.ts", "allow"],
  ["uniq src/a.ts", "allow"],
  ["cut -d, -f1 src/a.ts", "allow"],
  ["tr a-z A-Z", "allow"],
  ["cat src/a.ts | grep foo | wc -l", "allow"],
  ["ls -la | sort -k5 -n | tail -3", "allow"],
  ["ls && pwd", "allow"],
  ["ls || echo missing", "allow"],
  ["git status; git diff", "allow"],
  ["(cd src && ls)", "allow"],
  ["{ ls; pwd; }", "allow"],
  ["cd src && cat a.ts", "allow"],
  ["echo $(git rev-parse HEAD)", "allow"],
  ["echo `pwd`", "allow"],
  ["for f in src/*.ts; do echo $f; done", "allow"],
  ["if [ -f README.md ]; then cat README.md; fi", "allow"],
  ["[[ -d src ]] && ls src", "allow"],
  ["sed -n '1,10p' src/a.ts", "allow"],
  ["sed 's/foo/bar/g' src/a.ts", "allow"],
  ["awk '{print $1}' src/a.ts", "allow"],
  ["jq .name package.json", "allow"],
  ["diff src/a.ts src/b.ts", "allow"],
  ["stat src/a.ts", "allow"],
  ["file src/a.ts", "allow"],
  ["du -sh src", "allow"],
  ["tree src", "allow"],
  ["which node", "allow"],
  ["command -v git", "allow"],
  ["type ls", "allow"],
  ["basename /a/b/c", "allow"],
  ["date +%Y", "allow"],
  ["uname -a", "allow"],
  ["env", "allow"],
  ["printenv PATH", "allow"],
  ["node --version", "allow"],
  ["timeout 5 ls", "allow"],
  ["nice -n 5 ls", "allow"],
  ["env LC_ALL=C sort src/a.ts", "allow"],
  ["LC_ALL=C sort src/a.ts", "allow"],
  ["bash -c 'ls src'", "allow"],
  ['sh -c "git status && git diff"', "allow"],
  ["ls 2>/dev/null", "allow"],
  ["ls 2>&1 | head", "allow"],
  ["cat <<EOF\nhello\nEOF", "allow"],
  ["grep foo <<< 'foo bar'", "allow"],
  ["cat < src/a.ts", "allow"],
  ["cat <(ls src)", "allow"],
  ["echo $HOME", "allow"],
  ["find . -name '*.ts' | xargs echo", "allow"],
  ["set -euo pipefail; ls", "allow"],
  ["true && false", "allow"],
  ["sleep 1", "allow"],
  ["seq 1 10", "allow"],
  ["printf '%s\\n' a b", "allow"],
  ["test -f src/a.ts && echo yes", "allow"],
  ["md5sum src/a.ts", "allow"],
  ["echo done # $(rm -rf /) is a comment", "allow"],
  ["cat src/*", "allow"],
  ["cat dashdir/*", "allow"],
  ["wc -l dashdir/*", "allow"],
  // --- allowed by rules (both spellings) ------------------------------------------------------------
  ["npm run test", "allow"],
  ["npm run test -- --coverage", "allow"],
  ["make build", "allow"],
  ["make", "allow"],
  // --- not read-only: asked (denied headless) ---------------------------------------------------------
  ["curl https://example.com", "ask"],
  ["wget http://example.com/x", "ask"],
  ["ssh host", "ask"],
  ["nc -l 8080", "ask"],
  ["npm install", "ask"],
  ["npm test", "ask"],
  ["npm run build", "ask"],
  ["python3 -c 'print(1)'", "ask"],
  ["node -e 'process.exit()'", "ask"],
  ["perl -e 'print 1'", "ask"],
  ["touch marker", "ask"],
  ["mkdir x", "ask"],
  ["cp src/a.ts src/c.ts", "ask"],
  ["mv src/a.ts src/c.ts", "ask"],
  ["chmod +x src/a.ts", "ask"],
  ["ln -s /etc x", "ask"],
  ["kill 1", "ask"],
  ["tee out.txt", "ask"],
  ["yes | head -c 1000", "ask"],
  ["git commit -m x", "ask"],
  ["git checkout -b x", "ask"],
  ["git branch newbranch", "ask"],
  ["git branch -D main", "ask"],
  ["git tag v1", "ask"],
  ["git remote add origin x", "ask"],
  ["git stash", "ask"],
  ["git config user.name x", "ask"],
  ["git config --unset user.name", "ask"],
  ["git reflog expire --all", "ask"],
  ["git -c core.pager=cat log", "ask"],
  ["git --config-env=core.pager=X log", "ask"],
  ["git -p log", "ask"],
  ["git diff --output=/tmp/x", "ask"],
  ["git diff --out=/tmp/x", "ask"],
  ["git log --ext-diff", "ask"],
  ["git -C /tmp status", "ask"],
  ["find . -exec cat {} \\;", "ask"],
  ["find . -delete", "ask"],
  ["find . -fprint out.txt", "ask"],
  ["find -L . -name x", "ask"],
  ["find / -name passwd", "ask"],
  ["sort -o out.txt src/a.ts", "ask"],
  ["sort --output=out.txt src/a.ts", "ask"],
  ["sort -uo out.txt src/a.ts", "ask"],
  ["sort --out=out.txt src/a.ts", "ask"],
  ["sort --compress-program=sh src/a.ts", "ask"],
  ["uniq src/a.ts out.txt", "ask"],
  ["sed -i 's/a/b/' src/a.ts", "ask"],
  ["sed -ni 's/a/b/p' src/a.ts", "ask"],
  ["sed 's/a/b/w out.txt' src/a.ts", "ask"],
  ["sed '1e id' src/a.ts", "ask"],
  ["sed -f script.sed src/a.ts", "ask"],
  ["awk '{system(\"id\")}' src/a.ts", "ask"],
  ["awk '{print > \"out\"}' src/a.ts", "ask"],
  ["awk -f prog.awk src/a.ts", "ask"],
  ["rg --pre cat foo", "ask"],
  ["rg -L foo", "ask"],
  ["grep -R foo .", "ask"],
  ["tree -o out.txt", "ask"],
  ["date -s now", "ask"],
  ["hostname newname", "ask"],
  ["printf -v x '%s' y", "ask"],
  ["wc --files0-from=list", "ask"],
  // redirections to files are writes
  ["ls > out.txt", "ask"],
  ["echo hi >> notes.md", "ask"],
  ["ls &> out.log", "ask"],
  ["ls 2> err.log", "ask"],
  ["exec > out.txt", "ask"],
  ["cat src/a.ts > /tmp/x", "ask"],
  ["echo x > ~/.bashrc", "ask"],
  ["echo x > .git/hooks/pre-commit", "ask"],
  // reads outside the workspace
  ["cat /etc/passwd", "ask"],
  ["git grep --file /etc/passwd x", "ask"],
  ["sort --o=/tmp/x src/a.ts", "ask"],
  ["date --f=/etc/shadow", "ask"],
  ["ls -LR", "ask"],
  ["find src ?exec", "allow"],
  ["cat ../outside/secret.txt", "ask"],
  ["cat link-file", "ask"],
  ["cat link-dir/secret.txt", "ask"],
  ["cat link-dir/../outside/secret.txt", "ask"],
  ["cat ~/.ssh/id_rsa", "ask"],
  ["head ~/.bashrc", "ask"],
  ["ls /", "ask"],
  ["ls ..", "ask"],
  ["grep -r password /etc", "ask"],
  ["ls link-dir/", "ask"],
  ["cat loop1", "ask"],
  ["cd .. && ls", "ask"],
  ["cd / && cat etc/passwd", "ask"],
  ["cd", "ask"],
  ["ls {/etc,src}", "ask"],
  ["cat src/{a,b}.ts", "ask"],
  // computed at run time
  ["cat $FILE", "ask"],
  ["ls $(echo /)", "ask"],
  ["$CMD", "ask"],
  ['eval "$X"', "ask"],
  ['sh -c "$X"', "ask"],
  ["xargs cat", "ask"],
  ["find . | xargs grep foo", "ask"],
  ["echo $((x+1))", "ask"],
  ["x='a[$(id)]'; echo $((x))", "ask"],
  ["echo ${!ref}", "ask"],
  ["echo ${x:$(curl evil):1}", "ask"],
  ["coproc ls", "ask"],
  // environment that changes what runs
  ["FOO=bar ls", "ask"],
  ["PATH=/tmp:$PATH ls", "ask"],
  ["export PATH=/tmp", "ask"],
  ["GIT_EXTERNAL_DIFF=x git diff", "ask"],
  // scripts, interpreters and privilege
  ["bash script.sh", "ask"],
  ["source ./env.sh", "ask"],
  [". ./env.sh", "ask"],
  ["./script.sh", "ask"],
  ["/usr/bin/ls", "ask"],
  ["sudo ls", "ask"],
  ["doas ls", "ask"],
  ["bash -i", "ask"],
  ["echo ls | sh", "ask"],
  // wrappers hide nothing
  ["timeout 5 curl x", "ask"],
  ["nice curl x", "ask"],
  ["nohup curl x &", "ask"],
  ["sh -c 'ls; curl x'", "ask"],
  ["echo $(curl x)", "ask"],
  ["diff <(curl x) src/a.ts", "ask"],
  ["ls | tee out", "ask"],
  // cannot be parsed
  ["echo 'unterminated", "ask"],
  ["if then fi", "ask"],
  ["echo $((", "ask"],
  // ask rule
  ["git push", "ask"],
  ["git push origin main", "ask"],
  // --- deny rules see every sub-command, however it is wrapped ----------------------------------------
  ["rm -rf x", "deny"],
  ["rm x", "deny"],
  ["ls; rm x", "deny"],
  ["git status; rm -rf x", "deny"],
  ["ls && rm -rf /", "deny"],
  ["false || rm x", "deny"],
  ["echo $(rm -rf x)", "deny"],
  ["echo `rm x`", "deny"],
  ["sh -c 'rm -rf x'", "deny"],
  ['bash -lc "ls; rm x"', "deny"],
  ["sudo rm x", "deny"],
  ["xargs rm", "deny"],
  ["ls | xargs rm", "deny"],
  ["find . -exec rm {} \\;", "deny"],
  ["/bin/rm x", "deny"],
  ["command rm x", "deny"],
  ["env FOO=1 rm x", "deny"],
  ["timeout 5 rm x", "deny"],
  ["nice -n 5 rm x", "deny"],
  ["eval 'rm x'", "deny"],
  ["env -S 'rm -rf x'", "deny"],
  ["(rm x)", "deny"],
  ["{ rm x; }", "deny"],
  ["if true; then rm x; fi", "deny"],
  ["for i in 1; do rm $i; done", "deny"],
  ['"rm" x', "deny"],
  ["\\rm x", "deny"],
  ["r''m x", "deny"],
  ["cat .env", "deny"],
  ["cat .e*", "deny"],
  ["cat .[e]nv", "deny"],
  ["grep TOKEN .env", "deny"],
  ["echo x > secrets/key", "deny"],
  ["npm run test; rm x", "deny"],
];

describe("shell table: print-mode default (acceptEdits, headless) with rules", () => {
  const gate = gateFor(fx, { mode: "acceptEdits", ...RULES });

  test("the table has at least 100 commands", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(100);
    expect(new Set(TABLE.map(([command]) => command)).size).toBe(TABLE.length);
  });

  for (const [command, expected] of TABLE) {
    test(`${expected.padEnd(5)} ${JSON.stringify(command)}`, async () => {
      const verdict = gate.evaluate("Bash", { command });
      expect(verdict.behavior, verdict.message).toBe(expected);
      const decision = await gate(
        "Bash",
        { command },
        { signal: new AbortController().signal, toolUseID: "t" },
      );
      expect(decision.behavior).toBe(expected === "allow" ? "allow" : "deny");
    });
  }
});

describe("the same commands in other modes", () => {
  test("plan mode: read-only commands run, everything else is denied", () => {
    const gate = gateFor(fx, { mode: "plan", ...RULES });
    for (const [command, expected] of TABLE) {
      const verdict = gate.evaluate("Bash", { command });
      if (expected === "allow" && !/^(npm|make)/.test(command))
        expect(verdict.behavior, command).toBe("allow");
      else expect(verdict.behavior, `${command}: ${verdict.message}`).toBe("deny");
    }
  });

  test("bypassPermissions (--force): everything runs except deny rules, ask rules and protected paths", () => {
    const gate = gateFor(fx, { mode: "bypassPermissions", ...RULES });
    const expectations: [string, Expected][] = [
      ["curl https://example.com", "allow"],
      ["python3 -c 'print(1)'", "allow"],
      ["cat /etc/passwd", "allow"],
      ["ls > out.txt", "allow"],
      ["FOO=bar ls", "allow"],
      ["rm -rf x", "deny"],
      ["sh -c 'rm -rf x'", "deny"],
      ["cat .env", "deny"],
      ["cat .e*", "deny"],
      ["echo x > secrets/key", "deny"],
      ["git push", "ask"],
      ["echo x > .git/hooks/pre-commit", "ask"],
      ["$(echo rm) x", "ask"],
      ['sh -c "$X"', "ask"],
      ['eval "$X"', "ask"],
      ["echo 'rm -rf x' | sh", "ask"],
      ["bash <<EOF\nrm -rf x\nEOF", "ask"],
      ["bash script.sh", "ask"],
      ["echo 'unterminated", "ask"],
    ];
    for (const [command, expected] of expectations) {
      const verdict = gate.evaluate("Bash", { command });
      expect(verdict.behavior, `${command}: ${verdict.message}`).toBe(expected);
    }
  });
});

describe("messages name what decided", () => {
  const gate = gateFor(fx, { mode: "acceptEdits", ...RULES });
  const message = (command: string) => gate.evaluate("Bash", { command }).message;

  test("a deny rule", () => {
    expect(message("ls; rm -rf x")).toBe("denied by rule Bash(rm:*) (test)");
  });

  test("a command not on the list, with a rule to allow it", () => {
    expect(message("curl https://example.com")).toBe(
      "shell command `curl` is not in the read-only list; allow it with a rule like Bash(curl:*) or use --force",
    );
    expect(message("git push --force")).toBe("rule Bash(git push:*) (test) requires approval for this call");
  });

  test("an unsafe option of a listed command", () => {
    expect(message("find . -delete")).toMatch(
      /^`find \. -delete` is not read-only: find -delete: deletes files/,
    );
  });

  test("a path outside the workspace", () => {
    expect(message("cat /etc/passwd")).toMatch(/\/etc\/passwd is outside the workspace/);
  });

  test("an unparseable command", () => {
    expect(message("echo 'x")).toMatch(/could not be parsed .*it was not run/);
  });

  test("the force hint can be changed (SDK)", () => {
    const sdkGate = gateFor(fx, { forceHint: 'set permissionMode: "bypassPermissions"' });
    expect(sdkGate.evaluate("Bash", { command: "curl x" }).message).toMatch(
      /or set permissionMode: "bypassPermissions"$/,
    );
  });
});

describe("globs are expanded before they are judged", () => {
  test("a file named like an option makes a pattern that matches it unsafe, for every command", () => {
    const gate = gateFor(fx, { workspace: `${fx.ws}/dashdir` });
    const wc = gate.evaluate("Bash", { command: "wc -l *" });
    expect(wc.behavior).toBe("ask");
    expect(wc.message).toMatch(/expands to --files0-from=evil, which wc would read as an option/);
    expect(gate.evaluate("Bash", { command: "cat *" }).behavior).toBe("ask");
    expect(gate.evaluate("Bash", { command: "cat ./*" }).behavior).toBe("allow");
  });

  test("a pattern that could match a file another part of the line creates is refused (./* is fine)", () => {
    const gate = gateFor(fx, { allow: ["Bash(touch:*)"] });
    const verdict = gate.evaluate("Bash", { command: "touch ./-exec; find src ?exec" });
    expect(verdict.behavior).toBe("ask");
    expect(verdict.message).toMatch(/could expand to the name of a file this command line creates/);
    expect(gate.evaluate("Bash", { command: "touch ./x; ls ./src/*" }).behavior).toBe("allow");
    expect(gate.evaluate("Bash", { command: "git status; ls *.md" }).behavior).toBe("allow");
  });

  test("a symlink matched by a glob is followed to its target", () => {
    const gate = gateFor(fx);
    expect(gate.evaluate("Bash", { command: "cat link-*" }).message).toMatch(/outside the workspace/);
  });
});

describe("the PATH guard: a listed name is not trusted when it runs a program from the workspace", () => {
  const plant = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "ls"), "#!/bin/sh\necho planted\n", { mode: 0o755 });
  };

  test("a PATH entry inside the workspace that holds the program", () => {
    plant(path.join(fx.ws, "node_modules/.bin"));
    const gate = gateFor(fx, { env: { PATH: `${fx.ws}/node_modules/.bin:/usr/bin:/bin` } });
    const verdict = gate.evaluate("Bash", { command: "ls" });
    expect(verdict.behavior).toBe("ask");
    expect(verdict.message).toMatch(/would run .*node_modules\/\.bin\/ls, a program inside the workspace/);
    expect(gate.evaluate("Bash", { command: "timeout 5 cat src/a.ts" }).behavior).toBe("allow");
    expect(gate.evaluate("Bash", { command: "echo hi" }).behavior).toBe("allow");
  });

  test("a relative PATH entry resolves against the working directory", () => {
    plant(path.join(fx.ws, "bin"));
    const gate = gateFor(fx, { env: { PATH: "bin:/usr/bin:/bin" } });
    expect(gate.evaluate("Bash", { command: "ls" }).behavior).toBe("ask");
    expect(gate.evaluate("Bash", { command: "cat src/a.ts" }).behavior).toBe("allow");
  });

  test("system programs found first are trusted; explicit rules still work", () => {
    const gate = gateFor(fx, { env: { PATH: `/usr/bin:/bin:${fx.ws}/node_modules/.bin` } });
    expect(gate.evaluate("Bash", { command: "ls" }).behavior).toBe("allow");
    const ruled = gateFor(fx, {
      env: { PATH: `${fx.ws}/node_modules/.bin:/usr/bin` },
      allow: ["Bash(ls:*)"],
    });
    expect(ruled.evaluate("Bash", { command: "ls" }).behavior).toBe("allow");
  });
});

describe("git runs only in the workspace's own repository: another's config runs programs (textconv, filters)", () => {
  const nested = (name: string, dotGit: (dir: string) => void) => {
    const dir = path.join(fx.ws, name);
    mkdirSync(dir, { recursive: true });
    dotGit(dir);
    return dir;
  };

  test("a git directory not named .git (a layout the Write tool can make whole) is asked about, however git gets there", () => {
    // A bare repository's files: HEAD, config (a textconv program), objects, refs.
    nested("store", (dir) => writeFileSync(path.join(dir, "HEAD"), "ref: refs/heads/main\n"));
    // A .git file pointing at it: the model cannot write one (a protected path), a copied tree can hold one.
    nested("pointer", (dir) => writeFileSync(path.join(dir, ".git"), "gitdir: ../store\n"));
    const gate = gateFor(fx);
    for (const command of [
      "git --git-dir=store log -p -1",
      "git --git-dir store show HEAD",
      // A relative --git-dir is read from the last -C directory, whatever the order.
      "git -C src --git-dir=../store log -p",
      "git --git-dir=../store -C src diff",
      "git -C pointer log -p",
      "cd pointer && git diff",
      "sh -c 'cd pointer && git log -p'",
    ]) {
      const verdict = gate.evaluate("Bash", { command });
      expect(verdict.behavior, command).toBe("ask");
      expect(verdict.message, command).toMatch(
        /git would use the repository at \/.*, not one in a \.git directory/,
      );
    }
    // --bare names the working directory as the git directory: not on the read-only list at all.
    for (const command of ["cd store && git --bare log -p", "git -C store --bare show HEAD"])
      expect(gate.evaluate("Bash", { command }).behavior, command).toBe("ask");
    // A --git-dir that names nothing git could use cannot be checked either.
    expect(gate.evaluate("Bash", { command: "git --git-dir=store -C src diff" }).message).toMatch(
      /cannot be checked/,
    );
    // An allow rule names a command, not the repository it runs in.
    const ruled = gateFor(fx, { allow: ["Bash(git log:*)", "Bash(git add:*)"] });
    expect(ruled.evaluate("Bash", { command: "git --git-dir=store log -p" }).behavior).toBe("ask");
    expect(ruled.evaluate("Bash", { command: "git -C pointer add f" }).behavior).toBe("ask");
    expect(ruled.evaluate("Bash", { command: "git -C src --git-dir=../store log -p" }).behavior).toBe("ask");
    expect(ruled.evaluate("Bash", { command: "git log -p" }).behavior).toBe("allow");
  });

  test("repositories in .git directories are the user's: a nested one (a folder of repositories) is fine", () => {
    nested("nested", (dir) => mkdirSync(path.join(dir, ".git"), { recursive: true }));
    const gate = gateFor(fx);
    for (const command of [
      "git -C nested log -p -1",
      "cd nested && git status",
      "git -C nested --git-dir=.git log",
      "git --git-dir=nested/.git log",
    ])
      expect(gate.evaluate("Bash", { command }).behavior, command).toBe("allow");
  });

  test("the workspace's own repository, a subdirectory of it and a submodule are fine", () => {
    nested("sub", (dir) => writeFileSync(path.join(dir, ".git"), "gitdir: ../.git/modules/sub\n"));
    mkdirSync(path.join(fx.ws, ".git/modules/sub"), { recursive: true });
    const gate = gateFor(fx);
    for (const command of [
      "git log -p",
      "git -C src status",
      "cd src && git diff",
      "git -C sub log",
      "cd sub && git status",
      "git --git-dir=.git log",
      "git -C src --git-dir=../.git log",
    ])
      expect(gate.evaluate("Bash", { command }).behavior, command).toBe("allow");
  });

  test("--bare (the working directory as the git directory) and reflog or stash --output are asked about", () => {
    const gate = gateFor(fx);
    for (const command of [
      "git --bare log -p",
      "git -C src --bare show HEAD",
      "git reflog -1 --output=/tmp/x",
      "git reflog show --output=x",
      "git stash list --output=x",
      "git stash show -p --output=x",
    ])
      expect(gate.evaluate("Bash", { command }).behavior, command).toBe("ask");
    for (const command of ["git config --list --file=../outside/x", "git config list --file ../outside/x"])
      expect(gate.evaluate("Bash", { command }).message, command).toMatch(/outside the workspace/);
    for (const command of ["git reflog -5", "git stash list", "git stash show -p stash@{0}"])
      expect(gate.evaluate("Bash", { command }).behavior, command).toBe("allow");
  });
});
