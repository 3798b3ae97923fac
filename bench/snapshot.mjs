// Keeps a copy of a build to compare against later (bench/ab.mjs):
//
//   node bench/snapshot.mjs NAME             copies dist/ as it is now to .tmp/ab/NAME/dist
//   node bench/snapshot.mjs NAME --tsc-only  builds tsc's unbundled output there instead
//
// package.json is copied beside it, so the copy finds its version exactly as dist/ does
// (new URL("../../package.json", import.meta.url)); node_modules resolves from the repository.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./lib/harness.mjs";

const [name, mode] = process.argv.slice(2);
if (!name || (mode !== undefined && mode !== "--tsc-only")) {
  process.stderr.write("usage: node bench/snapshot.mjs NAME [--tsc-only]\n");
  process.exit(2);
}
const target = join(ROOT, ".tmp/ab", name);
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
copyFileSync(join(ROOT, "package.json"), join(target, "package.json"));
if (mode === "--tsc-only") {
  execFileSync(
    process.execPath,
    [
      join(ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      join(target, "dist"),
    ],
    { cwd: ROOT, stdio: "inherit" },
  );
  chmodSync(join(target, "dist/cli/main.js"), 0o755);
} else {
  cpSync(join(ROOT, "dist"), join(target, "dist"), { recursive: true });
}
process.stdout.write(`${join(target, "dist")}\n`);
