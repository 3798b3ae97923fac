import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import type { ToolContext } from "../../src/tools/types.js";

const created: string[] = [];

/** A fresh temp directory (real path, so assertions on absolute paths hold), removed after each test. */
export async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-tools-")));
  created.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export function context(
  cwd: string,
  extra: Partial<ToolContext> = {},
): ToolContext & { controller: AbortController } {
  const controller = new AbortController();
  return { cwd, signal: controller.signal, toolUseId: "toolu_test", controller, ...extra };
}
