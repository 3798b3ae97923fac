import { describe, expect, test } from "vitest";
import { hang, reply } from "../../src/testing/index.js";
import { MODEL, runCli, serverEnv, spawnCli, startServer } from "../conformance/pm/helpers.js";

/** Waits until the server has received `count` requests (the run is then inside its model call). */
async function requestsReached(server: { requests: readonly unknown[] }, count: number): Promise<void> {
  while (server.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("one writer per session", () => {
  test("a second concurrent --resume of a session is refused (exit 1, clear message); after a kill -9 the session resumes", async () => {
    const first = await runCli({ steps: [reply().text("One.")], args: ["--output-format", "json"] });
    const id = first.events[0]!.session_id as string;
    const args = (prompt: string) => [
      "-p",
      prompt,
      "--model",
      MODEL,
      "--output-format",
      "json",
      "--resume",
      id,
    ];

    const busy = await startServer([hang()]);
    const holder = spawnCli(args("keep it busy"), { cwd: first.dir, env: serverEnv(busy) });
    await requestsReached(busy, 1);

    const second = await startServer([reply().text("Interleaved.")]);
    const refused = spawnCli(args("me too"), { cwd: first.dir, env: serverEnv(second) });
    expect((await refused.exited).code).toBe(1);
    expect(refused.out.stdout).toBe("");
    expect(refused.out.stderr).toBe(
      `cairn: session ${id} is in use by another cairn process (pid ${holder.child.pid}); wait for it to end, or continue it under a new id with --fork-session\n`,
    );
    expect(second.requests).toHaveLength(0);

    // A holder that dies without cleaning up leaves a stale lock, which the next resume takes over.
    holder.child.kill("SIGKILL");
    await holder.exited;
    const third = await startServer([reply().text("Three.")]);
    const resumed = spawnCli(args("after the crash"), { cwd: first.dir, env: serverEnv(third) });
    expect((await resumed.exited).code).toBe(0);
    expect(JSON.parse(resumed.out.stdout).session_id).toBe(id);
  });
});
