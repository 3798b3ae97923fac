import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const SRC = join(__dirname, "../../src");

/** Every module specifier a file imports or re-exports, statically or with import(). */
function specifiers(file: string): string[] {
  const source = readFileSync(file, "utf8");
  return [...source.matchAll(/(?:from\s+|import\s*\(\s*)"([^"]+)"/g)].map((match) => match[1]!);
}

test("providers/ imports nothing from testing/ (the scenario format lives in providers/)", () => {
  const dir = join(SRC, "providers");
  const offending = readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) =>
      specifiers(join(dir, name))
        .filter((spec) => spec.includes("/testing/"))
        .map((spec) => `${name}: ${spec}`),
    );
  expect(offending).toEqual([]);
});
