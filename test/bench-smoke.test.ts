/**
 * Keeps the benchmark harness from rotting: `bench/run.mjs --quick` runs one tiny scenario (the
 * one-line answer against the scripted model server, two runs) and must write a results file of the
 * documented shape. Nothing here is timed: the benchmark itself is not run in CI (too noisy).
 * NODE_OPTIONS is set so that the caller's environment differs from the clean one and the start-up
 * scenario is measured in both, as on a machine with NODE_EXTRA_CA_CERTS.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const REPO = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = mkdtempSync(join(tmpdir(), "cairn-bench-smoke-"));

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("bench harness (--quick)", () => {
  it("runs one tiny scenario and writes a results file with the expected fields", () => {
    if (!existsSync(join(REPO, "dist/cli/main.js"))) {
      throw new Error("dist/ is missing: run `npm run build` first (`npm test` does it).");
    }
    const run = spawnSync(process.execPath, [join(REPO, "bench/run.mjs"), "--quick", "--out", out], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: "--no-warnings" },
    });
    expect(run.stderr).not.toMatch(/failed:/);
    expect(run.status).toBe(0);
    // The table names the yardstick and the scenario.
    expect(run.stdout).toContain("node -e 0");
    expect(run.stdout).toContain("one-line answer");

    const files = readdirSync(out).filter((name) => name.endsWith(".json"));
    expect(files).toContain("latest.json");
    expect(files.length).toBe(2); // <timestamp>.json and its copy latest.json
    const results = JSON.parse(readFileSync(join(out, "latest.json"), "utf8"));

    expect(results).toMatchObject({
      schema: "cairn-bench/1",
      quick: true,
      machine: { node: process.version },
      baseline: { id: "node-e-0", unit: "ms" },
    });
    expect(typeof results.startedAt).toBe("string");
    expect(typeof results.finishedAt).toBe("string");
    expect(results.baseline.median).toBeGreaterThan(0);
    expect(results.baseline.samples.length).toBeGreaterThanOrEqual(2);

    // Measured twice: the clean environment (the headline) and the caller's.
    expect(results.environments.measured).toEqual(["clean", "caller"]);
    expect(results.environments.cleanRemoves).toContain("NODE_OPTIONS");
    expect(results.baselineCaller).toMatchObject({ id: "node-e-0@caller", unit: "ms" });
    expect(results.scenarios.map((r: { id: string }) => r.id)).toEqual(["one-line", "one-line@caller"]);
    // --quick never installs or runs the peers (they need --peers).
    expect(results).not.toHaveProperty("peers");
    for (const row of results.scenarios) {
      expect(row).toMatchObject({
        status: "ok",
        unit: "ms",
        target: { kind: "overhead-max", value: 40 },
      });
      expect(row.samples).toHaveLength(2);
      for (const key of ["median", "min", "max", "ratio", "baselineMedianMs", "ownOverheadMs"]) {
        expect(typeof row[key], key).toBe("number");
      }
      expect(row.min).toBeLessThanOrEqual(row.median);
      expect(row.median).toBeLessThanOrEqual(row.max);
      expect(row.ownOverheadMs).toBeCloseTo(row.median - row.baselineMedianMs, 1);
      expect(typeof row.met).toBe("boolean");
    }
    expect(results.scenarios.map((r: { environment: string }) => r.environment)).toEqual(["clean", "caller"]);
    expect(run.stdout).toContain("own ms");
  });
});
