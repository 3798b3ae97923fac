import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { REPO } from "../conformance/pm/helpers.js";
import { linksIn } from "./markdown.js";

/**
 * CONTRIBUTING.md, AGENTS.md and docs/architecture.md send a newcomer (or a coding agent) to files
 * by name; when code moves, this test says which sentence to update.
 */
const GUIDES = ["CONTRIBUTING.md", "AGENTS.md", "README.md", "docs/architecture.md"];
/** `src/tools/define.ts`, `test/helpers/`: a quoted repository path (no placeholders, no globs). */
const QUOTED_PATH = /`((?:src|test|docs|scripts|examples|bench|\.ci)\/[^`\s<>*]*)`/g;

test("every file the guides link to or quote exists", () => {
  const missing = GUIDES.flatMap((guide) => {
    const text = readFileSync(join(REPO, guide), "utf8");
    const quoted = [...text.matchAll(QUOTED_PATH)].map((match) => match[1]!);
    return [...linksIn(text, guide), ...quoted]
      .filter((path) => !existsSync(join(REPO, path)))
      .map((path) => `${guide}: ${path}`);
  });
  expect(missing).toEqual([]);
});
