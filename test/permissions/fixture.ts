import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPermissionGate, type PermissionGateOptions, parseRules } from "../../src/permissions/index.js";
import type { PermissionMode, PermissionRule } from "../../src/permissions/types.js";
import { builtinTools } from "../../src/tools/index.js";

/**
 * A throw-away layout with every kind of escape route:
 *
 * base/
 *   ws/                  the workspace
 *     src/a.ts src/b.ts README.md package.json
 *     link-file   -> base/outside/secret.txt
 *     link-dir    -> base/outside
 *     hooks-link  -> ws/.git/hooks
 *     loop1 -> loop2, loop2 -> loop1 (circular)
 *     dangling    -> base/outside/new.txt (does not exist)
 *     .git/config .git/hooks/
 *     dashdir/--files0-from=evil   (a file name that looks like an option)
 *     .env
 *   ws-evil/x            sibling with the workspace's name as prefix
 *   outside/secret.txt
 *   home/.bashrc home/.ssh/id_rsa home/.cairn/
 */
export type Fixture = {
  base: string;
  ws: string;
  outside: string;
  home: string;
  cairnHome: string;
  cleanup(): void;
};

export function makeFixture(): Fixture {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-perm-")));
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  const home = path.join(base, "home");
  const cairnHome = path.join(home, ".cairn");
  for (const dir of [ws, outside, home, cairnHome, path.join(base, "ws-evil"), path.join(home, ".ssh")])
    mkdirSync(dir, { recursive: true });
  for (const dir of ["src", ".git/hooks", "dashdir", "docs", "secrets"])
    mkdirSync(path.join(ws, dir), { recursive: true });
  const files: Record<string, string> = {
    "ws/src/a.ts": "export const a = 1;\n",
    "ws/src/b.ts": "export const b = 2;\n",
    "ws/README.md": "# readme\n",
    "ws/package.json": '{"name":"x"}\n',
    "ws/.git/config": "[core]\n",
    "ws/.env": "TOKEN=1\n",
    "ws/dashdir/--files0-from=evil": "",
    "ws/secrets/key": "k\n",
    "ws-evil/x": "evil\n",
    "outside/secret.txt": "secret\n",
    "home/.bashrc": "# rc\n",
    "home/.ssh/id_rsa": "key\n",
  };
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(base, file), content);
  symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "link-file"));
  symlinkSync(outside, path.join(ws, "link-dir"));
  symlinkSync(path.join(ws, ".git/hooks"), path.join(ws, "hooks-link"));
  symlinkSync("loop2", path.join(ws, "loop1"));
  symlinkSync("loop1", path.join(ws, "loop2"));
  symlinkSync(path.join(outside, "new.txt"), path.join(ws, "dangling"));
  return {
    base,
    ws,
    outside,
    home,
    cairnHome,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export type GateSetup = {
  mode?: PermissionMode;
  allow?: string[];
  deny?: string[];
  ask?: string[];
  rules?: PermissionRule[];
} & Partial<PermissionGateOptions>;

export function gateFor(fixture: Fixture, setup: GateSetup = {}) {
  const { allow = [], deny = [], ask = [], rules = [], mode = "acceptEdits", ...rest } = setup;
  return createPermissionGate({
    mode,
    workspace: fixture.ws,
    home: fixture.home,
    cairnHome: fixture.cairnHome,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    tools: builtinTools(),
    rules: [
      ...parseRules(deny, "deny", "test"),
      ...parseRules(ask, "ask", "test"),
      ...parseRules(allow, "allow", "test"),
      ...rules,
    ],
    ...rest,
  });
}
