import { expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";

// An answer that stopped at the output limit, or a refusal, still prints (stdout keeps its format),
// but a script that only checks the exit code would take it for the whole answer: stderr says so.
for (const [reason, note] of [
  [
    "max_tokens",
    /^cairn: the model stopped at its output limit \(max_tokens\): the answer may be cut short\n$/,
  ],
  ["refusal", /^cairn: the model refused to answer \(stop reason: refusal\)\n$/],
] as const) {
  test(`a ${reason} stop prints the answer and says so on stderr`, async () => {
    const run = await runCli({
      steps: [reply().text("The answer is").stopReason(reason)],
      args: ["--output-format", "json"],
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: "success", result: "The answer is" });
    expect(run.stderr).toMatch(note);
  });
}

test("an answer that ended normally says nothing on stderr", async () => {
  const run = await runCli({ steps: [reply().text("Done.")], args: ["--output-format", "json"] });
  expect(run.code).toBe(0);
  expect(run.stderr).toBe("");
});
