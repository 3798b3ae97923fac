import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { CAIRN_CONFIG_KEYS, cursorHookFiles, foreignFiles } from "../../src/config/index.js";

const DOC = readFileSync(new URL("../../docs/config.md", import.meta.url), "utf8");

describe("docs/config.md", () => {
  test.each(CAIRN_CONFIG_KEYS)("documents the config key %s", (key) => {
    expect(DOC).toContain(`\`${key}\``);
  });

  test("names every file of the other agents that is read", () => {
    const files = [...foreignFiles("/ws", "/home/u", {}), ...cursorHookFiles("/ws", "/home/u", {})];
    for (const { file } of files) {
      const shown = file.replace("/home/u", "~").replace("/ws", "<workspace>");
      const name = shown.endsWith("/.cursor/cli.json") ? ".cursor/cli.json" : shown;
      expect(DOC).toContain(`\`${name}\``);
    }
  });
});
