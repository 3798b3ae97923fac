import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { TOOL_KINDS } from "../../src/cli/formats/tool-kinds.js";
import { REFERENCE_ONLY_FLAG_NAMES } from "../../src/cli/reference-flags.js";
import { SUBCOMMANDS } from "../../src/entry/run-cairn.js";
import { flagsOf } from "../../src/flags/flag-table.js";
import { SCHEMA_FILES, validLine } from "./schemas.js";

/** docs/events.md and docs/schema/ must cover every event and tool kind, with examples that validate. */
const doc = readFileSync(new URL("../../docs/events.md", import.meta.url), "utf8");
const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("docs/events.md", () => {
  test("every json example is a schema-valid event", () => {
    expect(examples.length).toBeGreaterThan(10);
    for (const example of examples) validLine(JSON.stringify(JSON.parse(example)));
  });

  test("has an example of every event and of every tool kind", () => {
    const events = examples.map((example) => JSON.parse(example) as Record<string, unknown>);
    const labels = new Set(events.map((event) => `${event.type}/${event.subtype ?? ""}`));
    for (const label of [
      "system/init",
      "user/",
      "assistant/",
      "tool_call/started",
      "tool_call/completed",
      "result/success",
    ]) {
      expect(labels).toContain(label);
    }
    const kinds = new Set(
      events
        .filter((event) => event.type === "tool_call")
        .map((event) => Object.keys(event.tool_call as object)[0]),
    );
    for (const key of [...Object.values(TOOL_KINDS).map((spec) => spec.key), "function"])
      expect(kinds).toContain(key);
  });

  test("lists every schema file, and the tool-call schema defines every kind", () => {
    for (const file of SCHEMA_FILES) expect(doc).toContain(`\`${file}\``);
    const schema = JSON.parse(
      readFileSync(new URL("../../docs/schema/tool-calls.schema.json", import.meta.url), "utf8"),
    );
    for (const spec of Object.values(TOOL_KINDS)) {
      const base = spec.key.replace(/ToolCall$/, "");
      expect(Object.keys(schema.$defs)).toEqual(expect.arrayContaining([`${base}Args`, `${base}Success`]));
    }
  });
});

describe("docs/cli.md", () => {
  const cli = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");

  test("names every flag cairn parses, every subcommand, and every reference flag cairn refuses", () => {
    // Print mode's parser is built from the flag table (src/cli/flag-options.ts).
    const declared = flagsOf("print").flatMap((spec) => [spec.flag, ...(spec.aliases ?? [])]);
    expect(declared.length).toBeGreaterThan(30);
    for (const flag of [...declared, "--version"]) expect(cli).toContain(flag);
    for (const command of SUBCOMMANDS) expect(cli).toContain(`\`cairn ${command}`);
    for (const flag of REFERENCE_ONLY_FLAG_NAMES) expect(cli).toContain(`\`${flag}\``);
  });
});
