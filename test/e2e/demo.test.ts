import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { expect, test } from "vitest";

test("npm run demo's script prints stream-json ending in a result and writes summary.txt", () => {
  const run = spawnSync(process.execPath, ["scripts/demo.mjs"], { encoding: "utf8" });
  expect(run.status).toBe(0);
  const lines = run.stdout.trimEnd().split("\n");
  const events = lines.map((line) => JSON.parse(line) as { type: string; subtype?: string; result?: string });
  expect(events[0]).toMatchObject({ type: "system", subtype: "init" });
  expect(events.at(-1)).toMatchObject({
    type: "result",
    subtype: "success",
    result:
      "I'll read the README.md fileBased on the README, I'll create a summaryDone! I've created the summary in summary.txt",
  });
  const workspace = /replaying a scripted model \(no network\) in (\S+)/.exec(run.stderr)?.[1];
  expect(workspace).toBeDefined();
  const summary = `${workspace}/summary.txt`;
  expect(existsSync(summary)).toBe(true);
  expect(readFileSync(summary, "utf8")).toContain("# README Summary");
});
