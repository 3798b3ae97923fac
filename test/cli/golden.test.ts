import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { projectionFor } from "../../src/cli/formats/select.js";
import type { OutputFormat } from "../../src/cli/formats/types.js";
import type { EngineEvent } from "../../src/engine/events.js";
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
