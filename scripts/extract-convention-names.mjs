#!/usr/bin/env node
/**
 * Extracts every export name the public agent-SDK convention's reference lists and writes them,
 * by section, to test/sdk/fixtures/convention-names.json, which test/sdk/convention-names.test.ts
 * checks cairn's exports against. The reference text lives outside this repository, so its names
 * are kept here as data; rerun this when the reference is updated:
 *
 *   node scripts/extract-convention-names.mjs path/to/agent-sdk-convention.md
 *
 * Each list is checked against the count the reference states ("Functions (21)", "(40 members)"),
 * so a change in the reference's layout fails here rather than shrinking the list silently.
 */
import { readFileSync, writeFileSync } from "node:fs";

const [docPath] = process.argv.slice(2);
if (!docPath) {
  process.stderr.write("usage: node scripts/extract-convention-names.mjs <agent-sdk-convention.md>\n");
  process.exit(2);
}
const doc = readFileSync(docPath, "utf8");
const OUT = new URL("../test/sdk/fixtures/convention-names.json", import.meta.url);

/** The text of the section whose heading starts with `heading`, up to the next heading of its level or above. */
function section(heading) {
  const lines = doc.split("\n");
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, "").startsWith(heading));
  if (start < 0) fail(`no section "${heading}"`);
  const level = lines[start].match(/^#+/)[0].length;
  const end = lines.findIndex(
    (line, i) => i > start && /^#+ /.test(line) && line.match(/^#+/)[0].length <= level,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

function fail(why) {
  process.stderr.write(`extract-convention-names: ${why}\n`);
  process.exit(1);
}

/** Appendix A's `**Label (N):** a b c` lines: the names, checked against N. */
function appendixList(label) {
  const match = section("Appendix A").match(new RegExp(`\\*\\*${label} \\((\\d+)\\):\\*\\* ([^\\n]+)`));
  if (!match) fail(`Appendix A has no "${label}" line`);
  const names = match[2].trim().split(/\s+/);
  if (names.length !== Number(match[1]))
    fail(`Appendix A "${label}": ${names.length} names, the reference says ${match[1]}`);
  return names;
}

/** §1's runtime exports: the backticked identifiers of its Functions / Classes / Constants lists. */
function runtimeExports() {
  const text = section("Runtime exports of `.`").split("Runtime-only, not declared")[0];
  const names = [...text.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]);
  // `USAGE_*_PREFIXES` is written as a pattern in the prose; Appendix A spells the three out.
  return [...new Set(names)];
}

/** §4's `type SDKMessage = A | B | …` block, checked against "(N members)". */
function messageUnion() {
  const heading = doc.match(/^## 4\. `SDKMessage` union \((\d+) members\)/m);
  if (!heading) fail("no §4 SDKMessage heading");
  const block = section("4. `SDKMessage` union").match(/type SDKMessage =([^;]+);/);
  if (!block) fail("no SDKMessage union in §4");
  const names = block[1].split("|").map((name) => name.trim());
  if (names.length !== Number(heading[1]))
    fail(`SDKMessage: ${names.length} members, the reference says ${heading[1]}`);
  return names;
}

/** §4's overview table: each message row's TS type, its `type` and its `subtype`s (none: `[]`). */
function messageTable() {
  const rows = [
    ...section("Overview table").matchAll(/^\| `([A-Za-z]+)` \| ([a-z_]+) \| ([^|]+(?:\\\|[^|]+)*) \|/gm),
  ];
  if (rows.length === 0) fail("no rows in §4's overview table");
  return rows.map(([, name, type, subtypes]) => ({
    name,
    type,
    subtypes: [...subtypes.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]),
  }));
}

const names = {
  source: "agent-sdk-convention.md (types of @anthropic-ai/claude-agent-sdk 0.3.332)",
  "§1 runtime exports": runtimeExports(),
  "Appendix A functions": appendixList("Functions"),
  "Appendix A consts/classes": appendixList("Consts/classes"),
  "Appendix A types": appendixList("Types/interfaces"),
  "§4 SDKMessage union": messageUnion(),
  "§4 message table": messageTable(),
};
writeFileSync(OUT, `${JSON.stringify(names, null, 2)}\n`);
process.stdout.write(
  `${Object.entries(names)
    .filter(([, list]) => Array.isArray(list))
    .map(([key, list]) => `${key}: ${list.length}`)
    .join("\n")}\n`,
);
