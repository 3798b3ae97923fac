import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

/**
 * The layering docs/architecture.md promises, checked on the source: which top-level folders of src/
 * may import which. The engine receives its model, prices and permission gate injected (src/run/
 * assembles them), so it must not reach for a provider, a front door or the config files.
 */
const SRC = fileURLToPath(new URL("../src", import.meta.url));

const FORBIDDEN: Record<string, string[]> = {
  engine: ["providers", "testing", "cli", "sdk", "run", "config", "sessions", "permissions", "hooks"],
  tools: ["providers", "testing", "cli", "sdk", "run", "config", "sessions"],
  // Subagents run on the engine with what the run assembly injects (models, prompts, transcripts);
  // commands and skills read their files where the config's setting sources say.
  agents: ["providers", "testing", "cli", "sdk", "run", "sessions", "permissions", "hooks"],
  permissions: ["providers", "testing", "cli", "sdk", "run", "config", "sessions"],
  config: ["providers", "testing", "cli", "sdk", "run", "engine", "hooks"],
  hooks: ["providers", "testing", "cli", "sdk", "run", "sessions"],
  providers: ["testing", "cli", "sdk", "run", "config", "sessions", "permissions"],
  run: ["cli", "sdk", "testing"],
  acp: ["testing"],
};

/** Every relative import of every .ts file under `dir`, as [file, top-level folder it imports]. */
function importsOf(dir: string): [string, string][] {
  const found: [string, string][] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import\()\s*"(\.[^"]+)"/g)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), match[1]!));
      found.push([path.relative(SRC, file), target.split(path.sep)[0]!]);
    }
  }
  return found;
}

describe("layering", () => {
  test.each(Object.entries(FORBIDDEN))("src/%s imports none of the layers above it", (layer, forbidden) => {
    const offending = importsOf(path.join(SRC, layer))
      .filter(([, target]) => forbidden.includes(target))
      .map(([file, target]) => `${file} → ${target}/`);
    expect(offending).toEqual([]);
  });
});
