import type { ToolContext } from "../../src/tools/types.js";
import { tempDir as sharedTempDir } from "../helpers/temp.js";

/** A fresh temp directory (real path, so assertions on absolute paths hold), removed after each test. */
export async function tempDir(): Promise<string> {
  return sharedTempDir("cairn-tools-");
}

export function context(
  cwd: string,
  extra: Partial<ToolContext> = {},
): ToolContext & { controller: AbortController } {
  const controller = new AbortController();
  return { cwd, env: process.env, signal: controller.signal, toolUseId: "toolu_test", controller, ...extra };
}
