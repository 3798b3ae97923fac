import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import {
  MODEL,
  ofType,
  parseLines,
  serverEnv,
  spawnCli,
  startServer,
  workspace,
} from "../conformance/pm/helpers.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("print mode: Read of an image", () => {
  test("PM-24 the model gets the image; the stream-json readToolCall stays valid (no lines, no bytes on stdout)", async () => {
    const server = await startServer([
      reply().tool("Read", { file_path: "shot.png" }),
      reply().text("A red pixel."),
    ]);
    const dir = workspace();
    writeFileSync(join(dir, "shot.png"), Buffer.from(PNG, "base64"));
    const run = spawnCli(["-p", "What is in shot.png?", "--model", MODEL, "--output-format", "stream-json"], {
      cwd: dir,
      env: serverEnv(server),
    });
    const { code } = await run.exited;
    expect(code).toBe(0);
    // parseLines checks every line against docs/schema.
    const events = parseLines(run.out.stdout);
    const completed = ofType(events, "tool_call").find((event) => event.subtype === "completed")!;
    expect(completed.tool_call).toMatchObject({
      readToolCall: {
        args: { path: "shot.png" },
        result: {
          success: { content: "", isEmpty: false, exceededLimit: false, totalLines: 0, totalChars: 0 },
        },
      },
    });
    expect(run.out.stdout).not.toContain(PNG);
    expect(server.requests[1]!.media).toEqual([
      { kind: "image", in: "tool_result", mediaType: "image/png", data: PNG },
    ]);
  });
});
