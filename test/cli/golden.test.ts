import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { type Describe, UpdateProjection } from "../../src/acp/updates.js";
import { projectionFor } from "../../src/cli/formats/select.js";
import type { OutputFormat } from "../../src/cli/formats/types.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { createSdkProjection } from "../../src/sdk/project.js";
import { describeToolCall } from "../../src/tools/display.js";
import { builtinTools, type Tool } from "../../src/tools/index.js";
import { GOLDEN_CASES } from "./golden/cases.js";
import { validLine } from "./schemas.js";

/**
 * Each output format is a pure function of the engine's events: recorded event sequences
 * (test/golden/<case>.events.ndjson, see golden/record.ts) go in, and the output must equal the golden
 * file byte for byte. `UPDATE_GOLDEN=1` rewrites the golden outputs; review their diff.
 */
const GOLDEN_DIR = fileURLToPath(new URL("../golden/", import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === "1";

const FORMATS: { suffix: string; format: OutputFormat; partial: boolean }[] = [
  { suffix: "text.txt", format: "text", partial: false },
  { suffix: "json.ndjson", format: "json", partial: false },
  { suffix: "stream-json.ndjson", format: "stream-json", partial: false },
  { suffix: "stream-json-partial.ndjson", format: "stream-json", partial: true },
];

function loadEvents(name: string): EngineEvent[] {
  return readFileSync(`${GOLDEN_DIR}${name}.events.ndjson`, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EngineEvent);
}

/** The tools of a case's run: the built-in ones plus its extra tools. */
function toolsOf(name: string): Tool[] {
  return [...builtinTools(), ...(GOLDEN_CASES.find((c) => c.name === name)?.extraTools ?? [])];
}

function project(events: EngineEvent[], format: OutputFormat, partial: boolean, tools: Tool[]): string {
  const projection = projectionFor(format, partial, tools);
  return events.map((event) => projection.project(event)).join("");
}

describe.each(GOLDEN_CASES.map((c) => c.name))("golden %s", (name) => {
  const events = loadEvents(name);
  const tools = toolsOf(name);

  test.each(FORMATS)("$suffix", ({ suffix, format, partial }) => {
    const output = project(events, format, partial, tools);
    const file = `${GOLDEN_DIR}${name}.${suffix}`;
    if (UPDATE || !existsSync(file)) writeFileSync(file, output);
    expect(output).toBe(readFileSync(file, "utf8"));
    if (format !== "text") for (const line of output.split("\n").filter(Boolean)) validLine(line);
  });

  test("projecting twice gives the same bytes (no clock, no hidden state)", () => {
    for (const { format, partial } of FORMATS) {
      expect(project(events, format, partial, tools)).toBe(project(events, format, partial, tools));
    }
  });
});

/**
 * The same recorded events through the other doors' projections: the SDK's messages (uuids
 * numbered) and ACP's session updates (a tool call shown as it is in a stored conversation, so no
 * file is read). A change in how the session's events reach any door shows in these files' diff.
 */
describe.each(GOLDEN_CASES.map((c) => c.name))("golden %s, other doors", (name) => {
  const events = loadEvents(name);
  const tools = toolsOf(name);

  test("sdk.ndjson", () => {
    let n = 0;
    const projection = createSdkProjection({
      includePartialMessages: true,
      version: "0.0.0-golden",
      uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
    });
    const output = events
      .flatMap((event) => projection.project(event))
      .map((message) => `${JSON.stringify(message)}\n`)
      .join("");
    expectGolden(`${name}.sdk.ndjson`, output);
  });

  test("acp.ndjson", () => {
    const start = events.find((event) => event.type === "run_start");
    const cwd = start?.type === "run_start" ? start.cwd : "/";
    const describe: Describe = (tool, input, live) =>
      describeToolCall(
        tools.find((t) => t.name === tool),
        tool,
        input,
        cwd,
        { live },
      );
    const projection = new UpdateProjection((tool, input) => describe(tool, input, false));
    const output = events
      .flatMap((event) => (event.type === "run_end" ? [] : projection.project(event)))
      .map((update) => `${JSON.stringify(update)}\n`)
      .join("");
    expectGolden(`${name}.acp.ndjson`, output);
  });
});

function expectGolden(fileName: string, output: string): void {
  const file = `${GOLDEN_DIR}${fileName}`;
  if (UPDATE || !existsSync(file)) writeFileSync(file, output);
  expect(output).toBe(readFileSync(file, "utf8"));
}
