import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { bwrapCommand } from "../../src/sandbox/bwrap.js";
import { resolveSandboxPolicy } from "../../src/sandbox/policy.js";
import { reply } from "../../src/testing/index.js";
import { MODEL, REPO, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { isAlive, signalPid } from "../helpers/process.js";
import { tempDir } from "../helpers/temp.js";
import { needsSandbox, pathWithoutBwrap, runBash, sandboxUnavailable } from "./sandbox-helpers.js";

/**
 * The OS sandbox under Bash (docs/security.md, "Sandbox"): each promise is checked with the built
 * CLI under bubblewrap, and each has a positive control showing the same command does have the
 * effect with `--sandbox disabled`, so the test could fail.
 */
const SANDBOXED = ["--sandbox", "enabled", "--force"];
const UNSANDBOXED = ["--sandbox", "disabled", "--force"];
/**
 * Explicit rules that let the permission checker pass writes to protected names, so that what stops
 * them below is the sandbox alone (the checker guards the same paths: docs/security.md).
 */
const PAST_THE_CHECKER = ["--allowedTools", "Write(.claude/**)", "Write(.git/**)", "Write(elsewhere/**)"];

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A directory outside /tmp and outside the workspace (the sandbox's /tmp is private anyway). */
function dirOutsideTmp(): string {
  const dir = mkdtempSync(join(REPO, ".sandbox-test-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const GIT_AUTHOR = {
  ...process.env,
  GIT_AUTHOR_NAME: "n",
  GIT_AUTHOR_EMAIL: "e",
  GIT_COMMITTER_NAME: "n",
  GIT_COMMITTER_EMAIL: "e",
};

/** A git repository to work in, with its hooks directory. */
function repository(): string {
  const dir = workspace();
  execFileSync("git", ["init", "-q", dir]);
  return dir;
}

describe.skipIf(sandboxUnavailable !== undefined)(`sandbox under Bash${needsSandbox}`, () => {
  test("a command cannot write outside the workspace: not elsewhere on disk, not in the real /tmp", async () => {
    const outside = dirOutsideTmp();
    const otherTmp = tempDir("cairn-outside-");
    const command = `echo x > ${outside}/escaped; echo x > ${otherTmp}/escaped; echo x > inside; echo done`;
    const run = await runBash(command, SANDBOXED);
    expect(run.code).toBe(0);
    // Read-only, or not there at all when the repository itself lives under /tmp (private in the sandbox).
    expect(run.output).toMatch(/Read-only file system|No such file or directory/);
    expect(existsSync(join(outside, "escaped"))).toBe(false);
    expect(existsSync(join(otherTmp, "escaped"))).toBe(false);
    expect(readFileSync(join(run.dir, "inside"), "utf8")).toBe("x\n");

    const control = await runBash(command, UNSANDBOXED);
    expect(control.code).toBe(0);
    expect(existsSync(join(outside, "escaped"))).toBe(true);
    expect(existsSync(join(otherTmp, "escaped"))).toBe(true);
  });

  test("by default and with --sandbox auto commands run sandboxed, and nothing is said on stderr", async () => {
    const outside = dirOutsideTmp();
    for (const args of [["--force"], ["--sandbox", "auto", "--force"]]) {
      const run = await runBash(`echo x > ${outside}/escaped; echo done`, args);
      expect(run.code).toBe(0);
      expect(run.output).toMatch(/done/);
      expect(run.stderr).toBe("");
      expect(existsSync(join(outside, "escaped"))).toBe(false);
    }
  });

  test("an --add-dir directory is writable like the workspace", async () => {
    const extra = dirOutsideTmp();
    const run = await runBash(`echo x > ${extra}/written && echo ok`, [...SANDBOXED, "--add-dir", extra]);
    expect(run.output).toMatch(/ok/);
    expect(readFileSync(join(extra, "written"), "utf8")).toBe("x\n");
  });

  test("cairn's home (config with keys, transcripts) reads as empty", async () => {
    const home = dirOutsideTmp();
    writeFileSync(join(home, "config.json"), JSON.stringify({ apiKey: "sk-in-cairn-config-42" }));
    const command = `cat ${home}/config.json; ls -A ${home}`;
    const run = await runBash(command, SANDBOXED, { env: { CAIRN_HOME: home } });
    expect(run.output).not.toContain("sk-in-cairn-config-42");
    expect(run.output).toMatch(/No such file/);

    const control = await runBash(command, UNSANDBOXED, { env: { CAIRN_HOME: home } });
    expect(control.output).toContain("sk-in-cairn-config-42");
  });

  test("with --force, .git/hooks and .git/config stay read-only, also through a script the checker cannot read", async () => {
    const script =
      "echo evil > .git/hooks/pre-commit; echo '[core]' >> .git/config; mv .git/hooks h; echo done\n";
    const dir = repository();
    writeFileSync(join(dir, "w.sh"), script);
    const config = readFileSync(join(dir, ".git/config"), "utf8");
    const run = await runBash("bash w.sh", SANDBOXED, { dir });
    expect(run.output).toMatch(/Read-only file system/);
    expect(existsSync(join(dir, ".git/hooks/pre-commit"))).toBe(false);
    expect(readFileSync(join(dir, ".git/config"), "utf8")).toBe(config);
    // mv falls back to copying across the mount; the original stays where it is.
    expect(existsSync(join(dir, ".git/hooks"))).toBe(true);
    expect(existsSync(join(dir, "h/pre-commit"))).toBe(false);

    const control = repository();
    writeFileSync(join(control, "w.sh"), script);
    await runBash("bash w.sh", UNSANDBOXED, { dir: control });
    expect(existsSync(join(control, "h/pre-commit"))).toBe(true);
  });

  test("renaming .git away and planting a new one does not get around the protection", async () => {
    const dir = repository();
    writeFileSync(
      join(dir, "w.sh"),
      "mv .git old; mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit\n",
    );
    await runBash("bash w.sh", SANDBOXED, { dir });
    expect(existsSync(join(dir, ".git/hooks/pre-commit"))).toBe(false);
    expect(existsSync(join(dir, "old"))).toBe(false);

    const control = repository();
    writeFileSync(
      join(control, "w.sh"),
      "mv .git old; mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit\n",
    );
    await runBash("bash w.sh", UNSANDBOXED, { dir: control });
    expect(existsSync(join(control, ".git/hooks/pre-commit"))).toBe(true);
  });

  test("protected paths that do not exist cannot be created, and leave nothing behind", async () => {
    const command = "mkdir -p .claude .git/hooks; echo '{}' > .claude/settings.json; git init -q .; ls -A";
    const run = await runBash(command, [...SANDBOXED, ...PAST_THE_CHECKER]);
    expect(run.output).not.toMatch(/Permission to use Bash was denied/);
    expect(existsSync(join(run.dir, ".claude/settings.json"))).toBe(false);
    expect(existsSync(join(run.dir, ".git/HEAD"))).toBe(false);
    // The mount points bubblewrap needed for them are removed once the command is over.
    expect(readdirSync(run.dir)).toEqual([]);

    const control = await runBash(command, [...UNSANDBOXED, ...PAST_THE_CHECKER]);
    expect(existsSync(join(control.dir, ".claude/settings.json"))).toBe(true);
    expect(existsSync(join(control.dir, ".git/HEAD"))).toBe(true);
  });

  test("commands side by side over the same missing protected paths each run, and leave nothing behind", async () => {
    // The workspace's hooks of one event run at once (Cursor's preToolUse and beforeReadFile of one
    // Read): the second command must not bind the first one's placeholder as an existing .git, which
    // goes away when the first is over (bwrap then failed: "Can't get type of source …/.git").
    const dir = workspace();
    const { policy } = await resolveSandboxPolicy({ mode: "enabled" }, { roots: [dir], env: process.env });
    const bwrap = policy.bwrapPath!;
    const first = bwrapCommand(policy, bwrap, ["sh", "-c", "echo first"], dir);
    expect(spawnSync(first.file, first.args, { encoding: "utf8" }).stdout).toBe("first\n");
    // Its mount points are on disk while it is still in use.
    expect(existsSync(join(dir, ".git"))).toBe(true);
    const second = bwrapCommand(policy, bwrap, ["sh", "-c", "echo second; mkdir -p .git/hooks"], dir);
    first.release();
    const ran = spawnSync(second.file, second.args, { encoding: "utf8" });
    expect(ran.stdout).toBe("second\n");
    // .git stays read-only for the second command too.
    expect(ran.stderr).toMatch(/^mkdir: .*Read-only file system\n$/);
    second.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("two cairn processes in one workspace: the first to finish leaves .git covered for the other's command", async () => {
    // Both commands run under bubblewrap with `.git` (missing) covered by a placeholder mount point
    // on the host. When the first process removed it at its end, the kernel detached the other
    // sandbox's mount there, and that command could create .git/hooks for git to run later.
    const dir = workspace();
    const waitFor = (file: string) => `until [ -e ${file} ]; do sleep 0.02; done`;
    const first = runBash(`touch first.started; ${waitFor("second.started")}; echo first done`, SANDBOXED, {
      dir,
    }).then((run) => {
      writeFileSync(join(dir, "first.exited"), "");
      return run;
    });
    const second = runBash(
      `${waitFor("first.started")}; touch second.started; ${waitFor("first.exited")}; mkdir -p .git/hooks && echo escaped`,
      [...SANDBOXED, ...PAST_THE_CHECKER],
      { dir },
    );
    const [firstRun, secondRun] = await Promise.all([first, second]);
    expect(firstRun.output).toContain("first done");
    expect(secondRun.output).toMatch(/mkdir: .*Read-only file system/);
    expect(secondRun.output).not.toContain("escaped");
    // And the last one out removed the placeholder.
    expect(readdirSync(dir).sort()).toEqual(["first.exited", "first.started", "second.started"]);
  });

  test("a command run as root keeps no capability: it cannot unmount the protected .git/hooks", async () => {
    // As root (CI containers) bubblewrap kept every capability: `umount` took the read-only mount
    // off .git/hooks, and the hook landed on disk. Not root, the capabilities are gone anyway.
    const dir = repository();
    const command = "grep CapEff /proc/self/status; umount -l .git/hooks; echo pwned > .git/hooks/pre-commit";
    const run = await runBash(
      command,
      [...SANDBOXED, ...PAST_THE_CHECKER, "--allowedTools", "Bash(umount:*)"],
      {
        dir,
      },
    );
    expect(run.output).toMatch(/CapEff:\s+0+\n/);
    expect(existsSync(join(dir, ".git/hooks/pre-commit"))).toBe(false);
  });

  test("what runs code outside the sandbox later stays read-only: commondir, husky, direnv, codex, submodules", async () => {
    const dir = repository();
    execFileSync("git", ["-C", dir, "commit", "-q", "--allow-empty", "-m", "one"], { env: GIT_AUTHOR });
    // A submodule's git directory, as `git submodule add` leaves it.
    mkdirSync(join(dir, ".git/modules"));
    execFileSync("git", ["init", "-q", "--separate-git-dir", join(dir, ".git/modules/sm"), join(dir, "sm")]);
    // A linked worktree: its commondir points git at the config and hooks it uses.
    execFileSync("git", ["-C", dir, "worktree", "add", "-q", join(dirOutsideTmp(), "wt")]);
    const targets = [
      ".git/commondir",
      ".husky/pre-commit",
      ".envrc",
      ".codex/config.toml",
      ".git/modules/sm/config",
      ".git/worktrees/wt/commondir",
      ".git/worktrees/wt/config.worktree",
    ];
    // Words computed at run time: the checker cannot see these paths, the sandbox must hold them.
    const command = [
      "git status --short >/dev/null && echo git-works",
      ...targets.map(
        (t) => `p=${t}; mkdir -p "$(dirname $p)" 2>/dev/null; echo pwned >> "$p" || echo "blocked $p"`,
      ),
    ].join("; ");
    const run = await runBash(command, [...SANDBOXED, ...PAST_THE_CHECKER], { dir });
    expect(run.output).toMatch(/^git-works\n/);
    for (const target of targets) {
      expect(run.output).toContain(`blocked ${target}`);
      const file = join(dir, target);
      expect(existsSync(file) ? readFileSync(file, "utf8") : "").not.toContain("pwned");
    }
    // The placeholders are gone, and git outside the sandbox works as before.
    expect(existsSync(join(dir, ".git/commondir"))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([".git", "sm"]);
    expect(execFileSync("git", ["-C", dir, "status", "--short"], { encoding: "utf8" })).toBe("?? sm/\n");
  });

  test("the ssh agent's socket (host IPC the network namespace does not cover) cannot be reached", async () => {
    // A Unix socket on a read-only path can be connected to; this one stands for the agents' and the
    // container engines' sockets, covered the same way.
    const dir = workspace();
    const socketDir = dirOutsideTmp();
    const socket = join(socketDir, "agent.sock");
    const agent = createServer((connection) => connection.end("AGENT-HELLO\n"));
    cleanups.push(() => agent.close());
    await new Promise<void>((resolve) => agent.listen(socket, resolve));
    const command = `node -e 'require("net").connect(process.argv[1]).on("data", (d) => process.stdout.write(String(d))).on("error", (e) => console.log(e.code))' "$SSH_AUTH_SOCK"`;
    const env = { SSH_AUTH_SOCK: socket };
    const run = await runBash(command, SANDBOXED, { dir, env });
    expect(run.output).not.toContain("AGENT-HELLO");
    expect(run.output).toMatch(/ECONNREFUSED|ENOTSOCK|ENOENT|EACCES/);
    const control = await runBash(command, UNSANDBOXED, { dir, env });
    expect(control.output).toContain("AGENT-HELLO");
  });

  test("placeholders left by a cairn process killed outright are removed by the next command", async () => {
    const dir = workspace();
    const server = await startServer([
      reply().tool("Bash", { command: "touch started; sleep 30" }),
      reply().text("x"),
    ]);
    const killed = spawnCli(["-p", "Go", "--model", MODEL, ...SANDBOXED], {
      cwd: dir,
      env: serverEnv(server),
    });
    while (!existsSync(join(dir, "started"))) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(existsSync(join(dir, ".cursor"))).toBe(true); // a placeholder, while the command runs
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(existsSync(join(dir, ".cursor"))).toBe(true); // no exit handler ran: left behind
    const next = await runBash("echo next", SANDBOXED, { dir });
    expect(next.output).toBe("next");
    expect(readdirSync(dir)).toEqual(["started"]);
  });

  test("a record left by a cairn process that is gone holds no placeholder", async () => {
    const dir = workspace();
    await runBash("echo first", SANDBOXED, { dir }); // the record's directory exists from here on
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout;
    const registry = ["/dev/shm", "/tmp"]
      .map((base) => `${base}/cairn-placeholders-${process.getuid?.()}`)
      .find((candidate) => existsSync(candidate));
    expect(registry).toBeDefined();
    const record = join(registry!, gone.toString());
    writeFileSync(record, join(dir, ".git"));
    const run = await runBash("echo ran", SANDBOXED, { dir });
    expect(run.output).toBe("ran");
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(record)).toBe(false);
  });

  test("a protected name that is a dangling symlink is covered where it points, and commands still run", async () => {
    const command = "echo ran; mkdir -p elsewhere && echo '{}' > .claude/settings.json";
    const dir = workspace();
    symlinkSync("elsewhere", join(dir, ".claude"));
    const run = await runBash(command, [...SANDBOXED, ...PAST_THE_CHECKER], { dir });
    expect(run.output).toMatch(/^ran\n/);
    expect(existsSync(join(dir, "elsewhere/settings.json"))).toBe(false);
    expect(existsSync(join(dir, "elsewhere"))).toBe(false);

    const control = workspace();
    symlinkSync("elsewhere", join(control, ".claude"));
    await runBash(command, [...UNSANDBOXED, ...PAST_THE_CHECKER], { dir: control });
    expect(existsSync(join(control, "elsewhere/settings.json"))).toBe(true);
  });

  test("/proc shows the sandbox's own processes: cairn's environment (its API key) is out of reach", async () => {
    const env = { ANTHROPIC_API_KEY: "sk-parent-secret-0123" };
    const command =
      "tr '\\0' '\\n' < /proc/$PPID/environ; for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done";
    const run = await runBash(command, SANDBOXED, { env });
    expect(run.code).toBe(0);
    expect(run.output).not.toContain("sk-parent-secret-0123");
    expect(run.output).toMatch(/PATH=/); // the command's own environment is readable

    const control = await runBash(command, UNSANDBOXED, { env });
    expect(control.output).toContain("sk-parent-secret-0123");
  });

  describe("network", () => {
    let server: Server | undefined;
    afterEach(() => server?.close());

    async function listen(): Promise<{ port: number; connections: () => number }> {
      let count = 0;
      server = createServer((socket) => {
        count += 1;
        socket.end();
      });
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      return { port: address.port, connections: () => count };
    }

    test("is off: a server on 127.0.0.1 cannot be reached; --sandbox-network turns it on", async () => {
      const { port, connections } = await listen();
      const command = `(echo hi > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo refused`;
      const run = await runBash(command, SANDBOXED);
      expect(run.output).toMatch(/refused/);
      expect(connections()).toBe(0);

      const allowed = await runBash(command, [...SANDBOXED, "--sandbox-network"]);
      expect(allowed.output).toMatch(/connected/);
      const control = await runBash(command, UNSANDBOXED);
      expect(control.output).toMatch(/connected/);
      expect(connections()).toBe(2);
    });
  });
});

/** A `sleep` with a duration no other test uses, to find it among the host's processes. */
const uniqueSeconds = () => `${900 + Math.floor(Math.random() * 90_000) / 1000}`;

/** Host pids of live `sleep <seconds>` processes. */
function sleepers(seconds: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") === `sleep\0${seconds}\0` && isAlive(Number(name)))
        pids.push(Number(name));
    } catch {}
  }
  return pids;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Starts `sleep <seconds>` in a session of its own and waits until it is running. */
const detach = (seconds: string) =>
  `setsid sleep ${seconds} > /dev/null 2>&1 < /dev/null & until grep -qa '^sleep' /proc/$!/cmdline; do :; done;`;
const KEEP_JOBS = { CAIRN_KEEP_BACKGROUND_JOBS: "1" };

describe.skipIf(sandboxUnavailable !== undefined)(`processes a command leaves behind${needsSandbox}`, () => {
  test("a setsid job ends with the command in the sandbox, even when the user opted in to keeping jobs", async () => {
    const seconds = uniqueSeconds();
    const run = await runBash(`${detach(seconds)} echo started`, SANDBOXED, { env: KEEP_JOBS });
    expect(run.output).toMatch(/started/);
    expect(sleepers(seconds)).toEqual([]);
  });

  test("without the sandbox, a setsid job ends with the run; opted in, it is kept (the positive control)", async () => {
    const ended = uniqueSeconds();
    await runBash(`${detach(ended)} echo started`, UNSANDBOXED);
    expect(sleepers(ended)).toEqual([]);

    const kept = uniqueSeconds();
    await runBash(`${detach(kept)} echo started`, UNSANDBOXED, { env: KEEP_JOBS });
    const survivors = sleepers(kept);
    for (const pid of survivors) signalPid(pid, "SIGKILL");
    expect(survivors).toHaveLength(1);
  });

  for (const [signal, code, message] of [
    ["SIGHUP", 129, "cairn: hung up (SIGHUP).\n"],
    ["SIGINT", 130, "cairn: interrupted (SIGINT).\n"],
  ] as const) {
    for (const [label, args] of [
      ["in the sandbox", SANDBOXED],
      ["without the sandbox", UNSANDBOXED],
    ] as const) {
      test(`${signal} during a command exits ${code} and ends it and its setsid job (${label})`, async () => {
        const detached = uniqueSeconds();
        const foreground = uniqueSeconds();
        const server = await startServer([
          reply().tool("Bash", { command: `${detach(detached)} sleep ${foreground}` }),
          reply().text("never reached"),
        ]);
        const cli = spawnCli(["-p", "Hi", "--model", MODEL, ...args], {
          cwd: workspace(),
          env: serverEnv(server),
        });
        await until(() => sleepers(foreground).length === 1 && sleepers(detached).length === 1);
        cli.child.kill(signal);
        expect(await cli.exited).toEqual({ code, signal: null });
        expect(cli.out.stderr).toBe(message);
        expect(sleepers(foreground)).toEqual([]);
        expect(sleepers(detached)).toEqual([]);
      });
    }
  }
});

const FALLBACK_NOTE =
  "cairn: the command sandbox is not available: bubblewrap (bwrap) is not installed; shell commands run with the permission checker alone\n";

describe("where the sandbox cannot run", () => {
  test("by default commands run with the checker alone and nothing is said: stderr stays empty", async () => {
    const bin = await pathWithoutBwrap();
    const run = await runBash("touch made; echo ok", ["--force"], { env: { PATH: bin } });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(existsSync(join(run.dir, "made"))).toBe(true);
  });

  test("--sandbox auto falls back to the checker alone, saying so once on stderr, with the reason", async () => {
    const bin = await pathWithoutBwrap();
    const run = await runBash("touch made; echo ok", ["--sandbox", "auto", "--force"], {
      env: { PATH: bin },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(FALLBACK_NOTE);
    expect(existsSync(join(run.dir, "made"))).toBe(true);
  });

  test("--sandbox auto says so before the run starts, also in a run that starts no command", async () => {
    const bin = await pathWithoutBwrap();
    const server = await startServer([reply().text("No command needed.")]);
    const cli = spawnCli(["-p", "hi", "--model", MODEL, "--sandbox", "auto"], {
      cwd: workspace(),
      env: { ...serverEnv(server), PATH: bin },
    });
    expect((await cli.exited).code).toBe(0);
    expect(cli.out.stdout).toBe("No command needed.\n");
    expect(cli.out.stderr).toBe(FALLBACK_NOTE);
  });

  test("cairn mcp list: quiet by default, the same one line with --sandbox auto", async () => {
    const env = { PATH: await pathWithoutBwrap() };
    const quiet = spawnCli(["mcp", "list"], { cwd: workspace(), env });
    expect((await quiet.exited).code).toBe(0);
    expect(quiet.out.stderr).toBe("");
    const told = spawnCli(["mcp", "list", "--sandbox", "auto"], { cwd: workspace(), env });
    expect((await told.exited).code).toBe(0);
    expect(told.out.stdout).toMatch(/^No MCP servers configured/);
    expect(told.out.stderr).toBe(FALLBACK_NOTE);
  });

  test("--sandbox enabled refuses to run (exit 2, nothing on stdout, the command never ran)", async () => {
    const bin = await pathWithoutBwrap();
    const run = await runBash("touch made", ["--sandbox", "enabled", "--force"], { env: { PATH: bin } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^cairn: the command sandbox is not available: .*turn the sandbox off\n$/);
    expect(existsSync(join(run.dir, "made"))).toBe(false);
  });

  test("a bwrap inside the workspace on PATH is not trusted", async () => {
    const dir = workspace();
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin/bwrap"), '#!/bin/sh\nshift $#; exec /bin/sh "$@"\n', { mode: 0o755 });
    const bin = await pathWithoutBwrap();
    const run = await runBash("echo ok", ["--sandbox", "enabled"], {
      dir,
      env: { PATH: `${join(dir, "bin")}:${bin}` },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bubblewrap \(bwrap\) is not installed/);
  });
});
