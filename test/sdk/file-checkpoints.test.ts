import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type Options, query, type SDKUserMessage } from "../../src/index.js";
import { SUPPORTED_OPTIONS, validateOptions } from "../../src/sdk/options.js";
import { JsonlTranscriptStore } from "../../src/sessions/store.js";
import { reply } from "../../src/testing/index.js";
import { cleanUp, collect, envFor, startServer, users, workspace } from "./helpers.js";

afterEach(cleanUp);

const FIRST = "11111111-1111-4111-8111-111111111111";
const SECOND = "22222222-2222-4222-8222-222222222222";

function userMessage(text: string, uuid: string): SDKUserMessage {
  return {
    type: "user",
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    session_id: "",
    uuid: uuid as SDKUserMessage["uuid"] & string,
  };
}

/** Turn 1 edits notes.txt and creates new.txt; turn 2 edits notes.txt again. */
const TWO_TURNS = [
  reply().tool("Edit", { file_path: "notes.txt", old_string: "original", new_string: "first" }),
  reply().tool("Write", { file_path: "new.txt", content: "created\nin turn one\n" }),
  reply().text("Turn one done."),
  reply().tool("Edit", { file_path: "notes.txt", old_string: "first", new_string: "second" }),
  reply().text("Turn two done."),
];

/**
 * Runs the two turns in one streaming-input query, then hands the live query to `whileOpen` (after
 * the second `result`, before the input ends).
 */
async function twoTurns(
  options: Options,
  whileOpen: (q: ReturnType<typeof query>, file: (name: string) => string) => Promise<void> = async () => {},
) {
  const server = await startServer(TWO_TURNS);
  const cwd = workspace({ "notes.txt": "original\n" });
  const file = (name: string) => join(cwd, name);
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* input() {
    yield userMessage("Edit notes and create new.txt", FIRST);
    yield userMessage("Edit notes again", SECOND);
    await held;
  }
  const q = query({
    prompt: input(),
    options: { cwd, env: envFor(server), permissionMode: "acceptEdits", ...options },
  });
  let results = 0;
  let sessionId = "";
  for await (const message of q) {
    sessionId = message.session_id ?? sessionId;
    if (message.type === "result" && ++results === 2) {
      await whileOpen(q, file);
      release();
    }
  }
  return { cwd, sessionId, file };
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

describe("enableFileCheckpointing and Query.rewindFiles", () => {
  test("rewinding to the first user message restores the edited file and removes the created one; dryRun changes nothing", async () => {
    let dryRun: unknown;
    let rewound: unknown;
    let before: Record<string, string | undefined> = {};
    let after: Record<string, string | undefined> = {};
    await twoTurns({ enableFileCheckpointing: true }, async (q, file) => {
      dryRun = await q.rewindFiles(FIRST, { dryRun: true });
      before = { notes: read(file("notes.txt")), created: read(file("new.txt")) };
      rewound = await q.rewindFiles(FIRST);
      after = { notes: read(file("notes.txt")), created: read(file("new.txt")) };
    });
    expect(before).toEqual({ notes: "second\n", created: "created\nin turn one\n" });
    expect(dryRun).toEqual({
      canRewind: true,
      filesChanged: [expect.stringMatching(/notes\.txt$/), expect.stringMatching(/new\.txt$/)],
      insertions: 1,
      deletions: 3,
    });
    expect(rewound).toEqual(dryRun);
    expect(after).toEqual({ notes: "original\n", created: undefined });
  });

  test("rewinding to the second user message keeps turn one's changes", async () => {
    let rewound: unknown;
    const { file } = await twoTurns({ enableFileCheckpointing: true }, async (q) => {
      rewound = await q.rewindFiles(SECOND);
    });
    expect(rewound).toMatchObject({ canRewind: true, filesChanged: [expect.stringMatching(/notes\.txt$/)] });
    expect(read(file("notes.txt"))).toBe("first\n");
    expect(read(file("new.txt"))).toBe("created\nin turn one\n");
  });

  test("the checkpoints survive the query: a resumed session rewinds before its first turn", async () => {
    const { sessionId, cwd, file } = await twoTurns({ enableFileCheckpointing: true });
    const server = await startServer([]);
    async function* never(): AsyncGenerator<SDKUserMessage> {}
    const resumed = query({
      prompt: never(),
      options: { cwd, env: envFor(server), resume: sessionId, enableFileCheckpointing: true },
    });
    const result = await resumed.rewindFiles(FIRST);
    resumed.close();
    expect(result).toMatchObject({ canRewind: true });
    expect(read(file("notes.txt"))).toBe("original\n");
    expect(read(file("new.txt"))).toBeUndefined();
  });

  test("without the option, or for an unknown message, nothing is rewound and the answer says why", async () => {
    let off: unknown;
    const { file } = await twoTurns({}, async (q) => {
      off = await q.rewindFiles(FIRST);
    });
    expect(off).toEqual({
      canRewind: false,
      error: expect.stringContaining("enableFileCheckpointing: true"),
    });
    expect(read(file("notes.txt"))).toBe("second\n");
    let unknown: unknown;
    await twoTurns({ enableFileCheckpointing: true }, async (q) => {
      unknown = await q.rewindFiles("33333333-3333-4333-8333-333333333333");
    });
    expect(unknown).toEqual({
      canRewind: false,
      error: expect.stringContaining("No file checkpoint for user message"),
    });
  });

  test("a checkpoint that cannot be saved refuses the change: the file is not written", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "made.txt", content: "x" }),
      reply().text("ok"),
    ]);
    const cwd = workspace();
    const env = envFor(server);
    const sessionId = "blocked-checkpoints";
    // A file where the checkpoint directory would go.
    const dir = new JsonlTranscriptStore({ env }).dirFor(cwd);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${sessionId}.checkpoints`), "in the way");
    const messages = await collect(
      query({
        prompt: "Write made.txt",
        options: { cwd, env, sessionId, permissionMode: "acceptEdits", enableFileCheckpointing: true },
      }),
    );
    const toolResult = users(messages)[0]!.message.content[0] as { content: unknown; is_error?: boolean };
    expect(toolResult.is_error).toBe(true);
    expect(toolResult.content).toMatch(
      /file checkpoint of .*made\.txt could not be saved, so it was not changed/,
    );
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
  });

  test("persistSession: false keeps the checkpoints in memory for the query", async () => {
    let rewound: unknown;
    const { file } = await twoTurns({ enableFileCheckpointing: true, persistSession: false }, async (q) => {
      rewound = await q.rewindFiles(FIRST);
    });
    expect(rewound).toMatchObject({ canRewind: true });
    expect(read(file("notes.txt"))).toBe("original\n");
  });
});

test("enableFileCheckpointing is a supported option: no 'not yet supported' warning", async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    validateOptions({ enableFileCheckpointing: true });
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  expect(SUPPORTED_OPTIONS).toContain("enableFileCheckpointing");
  expect(warnings.map((w) => w.message).filter((m) => m.includes("enableFileCheckpointing"))).toEqual([]);
});
