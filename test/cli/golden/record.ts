/**
 * Records the engine events of every golden case into test/golden/<name>.events.ndjson: the real
 * engine, the real Anthropic client and the real tools, against the scripted model server in a
 * temporary workspace; then normalised (normalize.ts). The projections' golden tests read these files,
 * so they keep testing the projections even while the engine changes. Re-record deliberately:
 *
 *   npx vite-node test/cli/golden/record.ts
 *   UPDATE_GOLDEN=1 npx vitest run test/cli/golden.test.ts   # then review the diff of test/golden/
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EngineEvent } from "../../../src/engine/events.js";
import { runAgent } from "../../../src/run/agent.js";
import { startScriptedServer } from "../../../src/testing/index.js";
import { builtinTools } from "../../../src/tools/index.js";
import { GOLDEN_CASES, type GoldenCase } from "./cases.js";
import { normalizeEvents } from "./normalize.js";

const GOLDEN_DIR = fileURLToPath(new URL("../../golden/", import.meta.url));

async function record(goldenCase: GoldenCase): Promise<EngineEvent[]> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "cairn-golden-")));
  for (const [name, content] of Object.entries(goldenCase.files)) writeFileSync(join(dir, name), content);
  const server = await startScriptedServer({ steps: goldenCase.steps, chunkSize: goldenCase.chunkSize });
  const events: EngineEvent[] = [];
  let sessionId = "";
  try {
    for await (const event of runAgent({
      prompt: goldenCase.prompt,
      cwd: dir,
      signal: new AbortController().signal,
      model: "anthropic/claude-sonnet-5-5",
      env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url },
      ...(goldenCase.extraTools ? { tools: [...builtinTools(), ...goldenCase.extraTools] } : {}),
    })) {
      if (event.type === "run_start") sessionId = event.sessionId;
      events.push(event);
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return normalizeEvents(events, sessionId, [dir]);
}

for (const goldenCase of GOLDEN_CASES) {
  const events = await record(goldenCase);
  const file = join(GOLDEN_DIR, `${goldenCase.name}.events.ndjson`);
  writeFileSync(file, events.map((event) => `${JSON.stringify(event)}\n`).join(""));
  process.stdout.write(`recorded ${events.length} events into ${file}\n`);
}
