import { readdirSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { type SourceImport, SRC, sourceImports } from "./helpers/source-imports.js";

/**
 * The layering docs/architecture.md describes ("Where things live"), checked on the source: what
 * each top-level folder (and file) of src/ may import. Bottom to top:
 *
 * - `util/` imports nothing of cairn's.
 * - The parts: engine, tools, providers, permissions, config, sandbox, mcp, sessions (transcripts),
 *   agents, hooks, each with the few parts it builds on. The engine receives its model, prices,
 *   permission gate and hooks injected, so it reaches for no provider, config file or front door.
 * - `run/`: the run assembly, which puts the parts together.
 * - `session/`: the session controller every door drives.
 * - `flags/`: the one table of the reference CLIs' flags that every door parses its argv with.
 * - The doors: `cli/`, `sdk/`, `acp/`, `claude-protocol/`, `interactive/`. No door imports another, except where
 *   one is built on another (DOOR_EXCEPTIONS, file by file, with the reason).
 * - `entry/`: the executable, which picks the door; `index.ts`: the package's root export.
 *
 * `testing/` (the scripted model server, `cairn/testing`) is imported by no production module.
 * Type-only imports count: a door that names another door's types depends on it all the same.
 * A new folder must be given its place here before it can import or be imported.
 */
const UTIL = ["util"];
const PARTS = [
  "engine",
  "tools",
  "providers",
  "permissions",
  "config",
  "sandbox",
  "mcp",
  "sessions",
  "agents",
  "hooks",
  "telemetry",
];
const BELOW_DOORS = [...UTIL, ...PARTS, "run", "session", "report", "flags"];
const DOORS = ["cli", "sdk", "acp", "claude-protocol", "interactive"];

/** What each top-level folder or file of src/ may import besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  util: [],
  engine: ["util", "tools", "sandbox"],
  tools: ["util", "engine", "sandbox"],
  providers: ["util", "engine"],
  permissions: ["util", "engine", "tools"],
  config: ["util", "permissions"],
  sandbox: ["util", "permissions", "tools"],
  mcp: ["util", "config", "sandbox", "tools"],
  sessions: ["util", "engine", "permissions"],
  // Subagents run on the engine with what the run assembly injects (models, prompts, transcripts);
  // commands and skills read their files where the config's setting sources say.
  agents: ["util", "config", "engine", "tools"],
  hooks: ["util", "config", "engine", "sandbox", "tools"],
  // OpenTelemetry export: the session's events as spans and metrics; loaded only when asked for.
  telemetry: ["util", "config", "engine"],
  run: [...UTIL, ...PARTS],
  session: [...UTIL, ...PARTS, "run"],
  // A session's HTML report (docs/report.md): reads transcripts, prices calls; loaded only by
  // `cairn report`, print mode's --report and the SDK's renderReport.
  report: ["util", "engine", "providers", "sessions"],
  // The flag table (src/flags/): each flag's spellings, value, doors and the option it sets; it
  // names the choices the parts define (permission modes, sandbox modes).
  flags: ["util", "permissions", "sandbox"],
  // Both open the sessions of a cairn serve database (durable/database-transcripts.ts, loaded lazily).
  cli: [...BELOW_DOORS, "durable"],
  sdk: [...BELOW_DOORS, "durable"],
  acp: BELOW_DOORS,
  "claude-protocol": BELOW_DOORS,
  // The interactive mode (a terminal): the CLI parses its flags and hands it their session setup.
  interactive: BELOW_DOORS,
  // Durable runs: the session controller driven by a worker, its steps checkpointed in PostgreSQL.
  durable: BELOW_DOORS,
  // `cairn serve`: the Cloud Agents API over the durable runs' tables.
  serve: [...BELOW_DOORS, "durable"],
  entry: [...BELOW_DOORS, ...DOORS, "durable", "serve"],
  "index.ts": [...BELOW_DOORS, "sdk"],
  // The scripted model server speaks the providers' wires and shares the scenario format.
  testing: ["util", "engine", "providers"],
};

/**
 * Files that live in one folder and belong to another layer. The executables stay in cli/ because
 * their built paths are public: package.json's `bin` is dist/cli/bin.cjs, and programs give the
 * agent SDKs dist/cli/main.js as the CLI to spawn (docs/protocols.md). main.ts answers the SDKs'
 * `-v` with the protocol's version; bin.cts runs the bundle of src/entry/start.ts.
 */
const LAYER_OF_FILE: Record<string, string> = {
  "cli/bin.cts": "entry",
  "cli/main.ts": "entry",
};

/**
 * Where a door is built on another, exactly these files. The agent-SDK CLI protocol is the SDK over
 * stdio: its frames are the SDK's messages and control requests, its flags and `initialize` map to
 * the SDK's `Options`, and it serves every session with the SDK's own `query()`, so a program gets
 * the same answers through either door.
 */
const DOOR_EXCEPTIONS: { files: readonly string[]; imports: string }[] = [
  {
    files: ["claude-protocol/args.ts", "claude-protocol/initialize.ts", "claude-protocol/serve.ts"],
    imports: "sdk",
  },
];

const imports = sourceImports();

function layerOf(module: string): string {
  return LAYER_OF_FILE[module] ?? module.split("/")[0]!;
}

function allowed({ from, to }: SourceImport): boolean {
  const [layer, target] = [layerOf(from), layerOf(to)];
  if (layer === target || MAY_IMPORT[layer]?.includes(target)) return true;
  return DOOR_EXCEPTIONS.some((exception) => exception.imports === target && exception.files.includes(from));
}

function describeImport({ from, to, kind }: SourceImport): string {
  return `${from} → ${to}${kind === "value" ? "" : ` (${kind})`}`;
}

describe("layering", () => {
  test("every folder and file at the top of src/ has its place in the table", () => {
    const entries = readdirSync(SRC, { withFileTypes: true }).map((entry) => entry.name);
    expect(entries.filter((name) => !(name in MAY_IMPORT))).toEqual([]);
    expect(Object.keys(MAY_IMPORT).filter((name) => !entries.includes(name))).toEqual([]);
  });

  test.each(Object.keys(MAY_IMPORT))("src/%s imports only what lies below it", (layer) => {
    const offending = imports.filter((one) => layerOf(one.from) === layer && !allowed(one));
    expect(offending.map(describeImport)).toEqual([]);
  });

  test("no door imports another, beyond the files named with their reason", () => {
    const betweenDoors = imports.filter(
      (one) => DOORS.includes(layerOf(one.from)) && DOORS.includes(layerOf(one.to)),
    );
    const across = betweenDoors.filter((one) => layerOf(one.from) !== layerOf(one.to));
    const named = DOOR_EXCEPTIONS.flatMap(({ files, imports: target }) =>
      files.map((file) => `${file} → ${target}/`),
    );
    // Each exception still holds (a file that stopped importing the other door leaves the list).
    expect([...new Set(across.map(({ from, to }) => `${from} → ${layerOf(to)}/`))].sort()).toEqual(
      named.sort(),
    );
  });

  test("each door reads its argv with the one flag table, and the entry picks the door", () => {
    const readers = imports.filter((one) => layerOf(one.to) === "flags" && one.to === "flags/flag-table.ts");
    const doorsReading = new Set(readers.map((one) => layerOf(one.from)));
    for (const door of ["cli", "claude-protocol", "acp"]) expect(doorsReading).toContain(door);
    // The entry loads the door it picks; no door is loaded by another to parse its flags.
    const entryLoads = new Set(
      imports.filter((one) => layerOf(one.from) === "entry").map((one) => layerOf(one.to)),
    );
    for (const door of ["cli", "claude-protocol", "acp"]) expect(entryLoads).toContain(door);
  });

  test("src/testing/ is imported by no production module", () => {
    const offending = imports.filter(
      (one) => layerOf(one.to) === "testing" && layerOf(one.from) !== "testing",
    );
    expect(offending.map(describeImport)).toEqual([]);
  });
});
