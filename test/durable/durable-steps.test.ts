import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { DurableSteps, type RunStep, UNKNOWN_OUTCOME } from "../../src/durable/durable-steps.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { builtinTools } from "../../src/tools/index.js";
import { collect, scriptedProvider } from "../helpers/loop.js";
import { tempDir } from "../helpers/temp.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What a durable engine keeps of each completed step: its output, as JSON, in order. */
type Log = unknown[];

/**
 * A workflow's first execution: steps run and are recorded, until the step named `diesAt` is about
 * to run (of which `nth` is given: 1 the first) — there the worker dies.
 */
function dyingExecution(log: Log, diesAt: string, nth: number): RunStep {
  let seen = 0;
  return async (run, { name }) => {
    if (name === diesAt && ++seen === nth) throw new Error("the worker died");
    const value = await run();
    log.push(JSON.parse(JSON.stringify(value)));
    return value;
  };
}

/** The next execution: recorded steps give back their outputs without running, the rest run. */
function resumedExecution(log: Log): RunStep {
  let next = 0;
  return async (run) => (next < log.length ? (log[next++] as never) : run());
}

const tools = builtinTools().filter((tool) => ["Edit", "Bash", "Read"].includes(tool.name));

async function twoExecutions(cwd: string, diesAt: string, nth: number, between: () => void) {
  const log: Log = [];
  const common = { provider: scriptedProvider(server!.url), tools, cwd, permissionMode: "bypassPermissions" };
  const first = await collect({
    ...common,
    steps: new DurableSteps(dyingExecution(log, diesAt, nth), "first"),
  });
  expect(first.end.isError).toBe(true);
  between();
  return collect({ ...common, steps: new DurableSteps(resumedExecution(log), "second") });
}

describe("durable steps", () => {
  test("an edit cut short by its worker's death runs again on the file as it was before it started", async () => {
    const cwd = tempDir("cairn-durable-", { "notes.txt": "old\n" });
    server = await startScriptedServer({
      steps: [
        reply().tool("Edit", { file_path: "notes.txt", old_string: "old", new_string: "new" }, "toolu_edit"),
        reply().text("Edited."),
      ],
    });
    // The worker died during the edit batch: the intent is recorded, the edit was half done.
    const second = await twoExecutions(cwd, "tools", 1, () =>
      writeFileSync(join(cwd, "notes.txt"), "garbage"),
    );
    expect(second.end.subtype).toBe("success");
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("new\n");
    // The model call before the edit was not made again.
    expect(server.requests.length).toBe(2);
  });

  test("a shell command cut short is not run again: its result tells the model the outcome is unknown", async () => {
    const cwd = tempDir("cairn-durable-");
    server = await startScriptedServer({
      steps: [
        reply().tool("Bash", { command: "echo effect >> ledger.txt" }, "toolu_bash"),
        reply().text("Noted."),
      ],
    });
    const second = await twoExecutions(cwd, "tools", 1, () => {});
    expect(second.end.subtype).toBe("success");
    expect(existsSync(join(cwd, "ledger.txt"))).toBe(false);
    const results = second.events.filter((event) => event.type === "tool_end");
    expect(results).toEqual([
      expect.objectContaining({ outcome: expect.objectContaining({ isError: true }) }),
    ]);
    expect(JSON.stringify(results[0])).toContain(UNKNOWN_OUTCOME);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(UNKNOWN_OUTCOME);
  });

  test("a read-only call cut short runs again", async () => {
    const cwd = tempDir("cairn-durable-", { "a.txt": "alpha\n" });
    server = await startScriptedServer({
      steps: [reply().tool("Read", { file_path: join(cwd, "a.txt") }, "toolu_read"), reply().text("Read.")],
    });
    const second = await twoExecutions(cwd, "tools", 1, () => {});
    expect(second.end.subtype).toBe("success");
    const result = second.events.find((event) => event.type === "tool_end");
    expect(result).toMatchObject({ outcome: { isError: false } });
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("alpha");
  });
});
