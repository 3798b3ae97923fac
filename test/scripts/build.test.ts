import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REPO } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";

/**
 * scripts/build.mjs --if-stale (what vitest runs before any test file) in a throw-away copy of the
 * repository's layout: a one-file src/, the real build script and tsc, and a post-build step that
 * counts the builds.
 */
function project(): string {
  const dir = tempDir("cairn-build-");
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "scripts"));
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  copyFileSync(join(REPO, "scripts/build.mjs"), join(dir, "scripts/build.mjs"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  writeFileSync(join(dir, "tsconfig.json"), "{}");
  writeFileSync(
    join(dir, "tsconfig.build.json"),
    JSON.stringify({
      compilerOptions: {
        rootDir: "src",
        outDir: "dist",
        module: "NodeNext",
        target: "ES2022",
        lib: ["ES2022"],
        strict: true,
        types: [],
      },
      include: ["src"],
    }),
  );
  writeFileSync(
    join(dir, "scripts/post-build.mjs"),
    [
      'import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";',
      'appendFileSync("builds.log", "built\\n");',
      'for (const dir of ["dist/cli", "dist/testing"]) mkdirSync(dir, { recursive: true });',
      'writeFileSync("dist/cli/bin.cjs", "");',
      'writeFileSync("dist/cli/main.js", "");',
      'writeFileSync("dist/testing/index.js", "");',
    ].join("\n"),
  );
  writeFileSync(join(dir, "src/index.ts"), "export const answer: number = 1;\n");
  return dir;
}

function buildIfStale(dir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: dir });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

const builds = (dir: string) => readFileSync(join(dir, "builds.log"), "utf8").split("\n").length - 1;
const built = (dir: string) => readFileSync(join(dir, "dist/index.js"), "utf8");

describe("building dist/ before the tests (scripts/build.mjs --if-stale)", () => {
  test("builds when there is no build, and not again while nothing changed", async () => {
    const dir = project();
    expect((await buildIfStale(dir)).code).toBe(0);
    expect(built(dir)).toContain("answer = 1");
    const again = await buildIfStale(dir);
    expect(again).toEqual({ code: 0, stderr: "" });
    expect(builds(dir)).toBe(1);
  });

  test("an edit under src/, a touched file or a changed package.json builds again", async () => {
    const dir = project();
    await buildIfStale(dir);
    writeFileSync(join(dir, "src/index.ts"), "export const answer: number = 2;\n");
    const rebuilt = await buildIfStale(dir);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stderr).toContain("older than its sources");
    expect(built(dir)).toContain("answer = 2");
    writeFileSync(join(dir, "src/more.ts"), "export const more = true;\n");
    await buildIfStale(dir);
    expect(readFileSync(join(dir, "dist/more.js"), "utf8")).toContain("more = true");
    // Same content, later modification time (a checkout, an editor's save): built again.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, "src/index.ts"), later, later);
    await buildIfStale(dir);
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ type: "module", private: true, version: "2.0.0" }),
    );
    await buildIfStale(dir);
    expect(builds(dir)).toBe(5);
  });

  test("a module deleted from src/ is gone from dist/ after the next build", async () => {
    const dir = project();
    writeFileSync(join(dir, "src/old.ts"), "export const old = true;\n");
    await buildIfStale(dir);
    expect(existsSync(join(dir, "dist/old.js"))).toBe(true);
    rmSync(join(dir, "src/old.ts"));
    expect((await buildIfStale(dir)).code).toBe(0);
    expect(existsSync(join(dir, "dist/old.js"))).toBe(false);
    expect(built(dir)).toContain("answer = 1");
  });

  test("two invocations started together build once, and both succeed", async () => {
    const dir = project();
    const results = await Promise.all([buildIfStale(dir), buildIfStale(dir)]);
    expect(results.map((result) => result.code)).toEqual([0, 0]);
    expect(builds(dir)).toBe(1);
  });

  test("a failed build exits non-zero, says so, and the next run builds again", async () => {
    const dir = project();
    writeFileSync(join(dir, "src/index.ts"), 'export const answer: number = "one";\n');
    const failed = await buildIfStale(dir);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("the build failed");
    writeFileSync(join(dir, "src/index.ts"), "export const answer: number = 3;\n");
    expect((await buildIfStale(dir)).code).toBe(0);
    expect(built(dir)).toContain("answer = 3");
  });

  test("a deleted dist/ entry point is built again whatever the stamp says", async () => {
    const dir = project();
    await buildIfStale(dir);
    rmSync(join(dir, "dist/cli/main.js"));
    await buildIfStale(dir);
    expect(builds(dir)).toBe(2);
  });

  test("a lock left behind by a killed build is taken over", async () => {
    const dir = project();
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    mkdirSync(join(dir, "dist"));
    writeFileSync(join(dir, "dist/.build-lock"), gone.stdout.toString());
    expect((await buildIfStale(dir)).code).toBe(0);
    expect(builds(dir)).toBe(1);
  });
});
