import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";

/**
 * The bin compiles the CLI bundle with a V8 code cache (src/cli/bin.cts): a run must behave the same
 * with no cache, its own cache, and a cache that is garbage, and the cache goes where the user said.
 */
describe("the CLI's code cache", () => {
  const cacheDir = () => mkdtempSync(join(tmpdir(), "cairn-code-cache-"));
  const cacheFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".cache"));

  async function answer(env: NodeJS.ProcessEnv, text: string) {
    const server = await startServer([reply().text(text)]);
    const cli = spawnCli(["-p", "hi"], { cwd: workspace(), env: { ...serverEnv(server), ...env } });
    const { code } = await cli.exited;
    return { code, stdout: cli.out.stdout, stderr: cli.out.stderr };
  }

  test("is written once to CAIRN_CODE_CACHE, private to the user, and used by the next run", async () => {
    const dir = cacheDir();
    expect(await answer({ CAIRN_CODE_CACHE: dir }, "First.")).toEqual({
      code: 0,
      stdout: "First.\n",
      stderr: "",
    });
    const [name] = cacheFiles(dir);
    expect(cacheFiles(dir)).toHaveLength(1);
    expect(name).toMatch(
      new RegExp(`^cli-[0-9a-f]{16}-${process.version}-${process.arch}-[0-9a-f]+\\.cache$`),
    );
    const file = join(dir, name!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).mtimeMs;
    expect(await answer({ CAIRN_CODE_CACHE: dir }, "Second.")).toEqual({
      code: 0,
      stdout: "Second.\n",
      stderr: "",
    });
    // Accepted, so not written again.
    expect(statSync(file).mtimeMs).toBe(written);
    expect(readdirSync(dir)).toEqual([name]);
  });

  test("a cache V8 rejects (here: garbage) costs only the compile, and is replaced", async () => {
    const dir = cacheDir();
    await answer({ CAIRN_CODE_CACHE: dir }, "Warm.");
    const [name] = cacheFiles(dir);
    const file = join(dir, name!);
    writeFileSync(file, Buffer.alloc(4096, 7));
    expect(await answer({ CAIRN_CODE_CACHE: dir }, "Still right.")).toEqual({
      code: 0,
      stdout: "Still right.\n",
      stderr: "",
    });
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  test("CAIRN_CODE_CACHE=0 writes nothing, also not in the user's cache directory", async () => {
    const home = cacheDir();
    const result = await answer({ CAIRN_CODE_CACHE: "0", XDG_CACHE_HOME: home, HOME: home }, "Uncached.");
    expect(result).toEqual({ code: 0, stdout: "Uncached.\n", stderr: "" });
    expect(readdirSync(home)).toEqual([]);
  });

  test("text with non-ASCII characters survives the bundle (the bin reads it as Latin-1)", async () => {
    const cli = spawnCli(["login"], { cwd: workspace(), env: { ...process.env, CAIRN_CODE_CACHE: "0" } });
    await cli.exited;
    expect(cli.out.stderr).toContain("OPENAI_API_KEY, …)");
  });
});
