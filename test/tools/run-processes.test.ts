import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_TAG_VAR, stopRunProcesses, taggedEnvironment } from "../../src/tools/run-processes.js";
import { isAlive } from "../helpers/process.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A detached `sleep` (out of this process's group, as a `setsid` job) with `env`. */
function sleeper(env: NodeJS.ProcessEnv): number {
  const child = spawn("sleep", ["30"], { env, detached: true, stdio: "ignore" });
  children.push(child);
  child.unref();
  return child.pid!;
}

async function gone(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
  return !isAlive(pid);
}

describe.runIf(existsSync("/proc/self/environ"))("stopRunProcesses", () => {
  it("stops a process started with the run's tag", async () => {
    const tag = randomUUID();
    const env = taggedEnvironment({ PATH: process.env.PATH ?? "" }, tag);
    expect(env[RUN_TAG_VAR]).toBe(tag);
    const pid = sleeper(env);
    await stopRunProcesses(tag, {});
    expect(await gone(pid)).toBe(true);
  });

  it("does not scan /proc for a run that never handed out its tag (no command ran)", async () => {
    // Only taggedEnvironment() hands a tag out; a process carrying one it never gave is not the run's.
    const tag = randomUUID();
    const pid = sleeper({ PATH: process.env.PATH ?? "", [RUN_TAG_VAR]: tag });
    await stopRunProcesses(tag, {});
    expect(isAlive(pid)).toBe(true);
  });

  it("keeps the tagged processes when the user opted in", async () => {
    const tag = randomUUID();
    const pid = sleeper(taggedEnvironment({ PATH: process.env.PATH ?? "" }, tag));
    await stopRunProcesses(tag, { CAIRN_KEEP_BACKGROUND_JOBS: "1" });
    expect(isAlive(pid)).toBe(true);
  });
});
