import { describe, expect, test } from "vitest";
import { reply } from "../../../src/testing/index.js";
import { ofType, runCli, textOf } from "./helpers.js";

const PARTIAL = ["--output-format", "stream-json", "--stream-partial-output"];

type Kind = "delta" | "flush" | "final";
/** The three assistant kinds of PM-29, told apart exactly as the original's table does. */
function kindOf(event: Record<string, unknown>): Kind {
  const ts = "timestamp_ms" in event;
  const id = "model_call_id" in event;
  if (ts && !id) return "delta";
  if (ts && id) return "flush";
  if (!ts && !id) return "final";
  throw new Error(`model_call_id without timestamp_ms: ${JSON.stringify(event)}`);
}

/** Text with whitespace-only and non-ASCII pieces, so any dropped or doubled chunk shows. */
const steps = () => [
  reply().thinking("private").text("正在查看 🙂 the\n\n  ").tool("Read", { file_path: "a.txt" }),
  reply().tool("Read", { file_path: "a.txt" }), // a tool call with no text before it: no flush
  reply().text("   ").tool("Bash", { command: "echo hi" }),
  reply().text("\tdone ✅ 👩‍💻\n"),
];
const EXPECTED = "正在查看 🙂 the\n\n     \tdone ✅ 👩‍💻\n";

/** --stream-partial-output (PM-28…PM-30). */
describe("print-mode conformance: partial output", () => {
  test("PM-28 with stream-json, text arrives in small chunks: several assistant events per message", async () => {
    const run = await runCli({
      steps: [reply().text("A message of some forty characters, yes.")],
      chunkSize: 4,
      args: PARTIAL,
    });
    expect(run.code).toBe(0);
    const deltas = ofType(run.events, "assistant").filter((event) => kindOf(event) === "delta");
    expect(deltas.length).toBe(Math.ceil("A message of some forty characters, yes.".length / 4));
    expect(deltas.every((event) => textOf(event).length <= 4)).toBe(true);
  });

  test("PM-28 with json or text the flag is ignored (documented), with a warning on stderr", async () => {
    for (const format of ["json", "text"]) {
      const run = await runCli({
        steps: [reply().text("Whole.")],
        chunkSize: 1,
        args: ["--output-format", format, "--stream-partial-output"],
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(format === "json" ? `${JSON.stringify(run.events[0])}\n` : "Whole.\n");
      expect(run.stderr).toBe(
        "cairn: --stream-partial-output only applies to --output-format stream-json; ignored.\n",
      );
    }
  });

  test("PM-29 three assistant kinds: deltas (timestamp_ms), the flush before a tool call (+model_call_id), the final flush (neither)", async () => {
    const run = await runCli({ steps: steps(), files: { "a.txt": "a\n" }, chunkSize: 3, args: PARTIAL });
    expect(run.code).toBe(0);
    const events = run.events;

    let sinceBoundary = "";
    for (const [index, event] of events.entries()) {
      if (event.type === "tool_call" && event.subtype === "started") sinceBoundary = "";
      if (event.type !== "assistant") continue;
      const kind = kindOf(event);
      if (kind === "delta") {
        sinceBoundary += textOf(event);
        expect(Number.isInteger(event.timestamp_ms)).toBe(true);
      } else if (kind === "flush") {
        // Exactly the text since the last boundary, once, right before the tool call.
        expect(textOf(event)).toBe(sinceBoundary);
        expect(events[index + 1]).toMatchObject({ type: "tool_call", subtype: "started" });
        expect(event.model_call_id).toMatch(/^req_scripted_\d+-\d+-[0-9a-z]{4}$/);
        sinceBoundary = "";
      } else {
        // The final flush repeats the last segment and comes right before result.
        expect(textOf(event)).toBe(sinceBoundary);
        expect(events[index + 1]).toMatchObject({ type: "result" });
        sinceBoundary = "";
      }
    }
    const kinds = ofType(events, "assistant").map(kindOf);
    expect(kinds.filter((kind) => kind === "flush")).toHaveLength(2); // no flush for the text-less call
    expect(kinds.filter((kind) => kind === "final")).toHaveLength(1);
    expect(kinds.at(-1)).toBe("final");
    const flushes = ofType(events, "assistant")
      .filter((event) => kindOf(event) === "flush")
      .map(textOf);
    expect(flushes).toEqual(["正在查看 🙂 the\n\n  ", "   "]);
  });

  test("PM-30 keeping only the deltas rebuilds result byte for byte (chunk sizes 1, 2 and 3)", async () => {
    for (const chunkSize of [1, 2, 3]) {
      const run = await runCli({ steps: steps(), files: { "a.txt": "a\n" }, chunkSize, args: PARTIAL });
      expect(run.code).toBe(0);
      const rebuilt = ofType(run.events, "assistant")
        .filter((event) => kindOf(event) === "delta")
        .map(textOf)
        .join("");
      const result = run.events.at(-1)!.result as string;
      expect(Buffer.from(rebuilt)).toEqual(Buffer.from(result));
      expect(result).toBe(EXPECTED);
    }
  });

  test("PM-30 a consumer skipping every assistant event gets the complete answer from result", async () => {
    const partial = await runCli({ steps: steps(), files: { "a.txt": "a\n" }, chunkSize: 2, args: PARTIAL });
    const json = await runCli({
      steps: steps(),
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    const withoutAssistant = partial.events.filter((event) => event.type !== "assistant");
    expect(withoutAssistant.at(-1)!.result).toBe(json.events[0]!.result);
    expect(json.events[0]!.result).toBe(EXPECTED);
  });
});
