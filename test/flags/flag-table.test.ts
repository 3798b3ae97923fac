/**
 * The one flag table (src/flags/flag-table.ts) that print mode, the agent-SDK CLI protocol and ACP
 * read their argv with: what a user of each door notices of it.
 */
import { describe, expect, test } from "vitest";
import { parseProtocolArgs } from "../../src/claude-protocol/args.js";
import { OUTPUT_FORMATS } from "../../src/cli/formats/types.js";
import { TOOL_PAYLOAD_SHAPES } from "../../src/cli/tool-payload-shape.js";
import { FLAGS, findFlag, flagsOf } from "../../src/flags/flag-table.js";
import { reply } from "../../src/testing/index.js";
import { cleanEnv, MODEL, runCli, spawnCli, workspace } from "../conformance/pm/helpers.js";
import { CTRL_D, ready, skipped, startCairn } from "../interactive/cairn-terminal.js";

/** The last user message's text the model was sent. */
function promptSent(body: unknown): string {
  const messages = (body as { messages: { role: string; content: string | { text?: string }[] }[] }).messages;
  const last = messages.filter((message) => message.role === "user").at(-1)!;
  return typeof last.content === "string"
    ? last.content
    : last.content.map((part) => part.text ?? "").join("");
}

describe("print mode: a list flag runs to the next flag, as the reference CLI's does", () => {
  test("the prompt after --allowedTools <rules...> is taken as a rule: the usage error says so (exit 2, nothing on stdout)", async () => {
    const { exited, out } = spawnCli(
      ["-p", "--allowedTools", "Bash(git log:*)", "fix the test", "--model", MODEL],
      {
        cwd: workspace(),
        env: cleanEnv(),
      },
    );
    expect((await exited).code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain(
      'cairn: The prompt read from stdin is empty (--allowedTools takes every word after it, so it took "fix the test" too; give the prompt before --allowedTools, or end its list with --).',
    );
  });

  test.each([
    ["--allowedTools=Bash(git log:*)", "fix the test"],
    ["--allowedTools", "Bash(git log:*)", "--", "fix the test"],
    ["fix the test", "--allowedTools", "Bash(git log:*)"],
  ])("%s %s … : the prompt reaches the model", async (...args) => {
    const run = await runCli({
      steps: [reply().text("Done.")],
      prompt: null,
      args: ["-p", ...args],
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Done.\n");
    expect(promptSent(run.server.requests[0]!.body)).toContain("fix the test");
  });
});

describe("the agent-SDK CLI protocol reads the SDKs' argv with the same table", () => {
  test("a flag both doors take sets the same thing in each: --max-turns, --model, the rule lists", () => {
    const args = parseProtocolArgs([
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--max-turns=3",
      "--model",
      "sonnet",
      "--allowedTools",
      "Read,Bash(git log:*)",
    ]);
    expect(args.warnings).toEqual([]);
    expect(args.options).toEqual({ maxTurns: 3, model: "sonnet", allowedTools: ["Read", "Bash(git log:*)"] });
  });

  test("every flag the table gives the protocol without a reason is applied: no warning for it", () => {
    const applied = flagsOf("protocol").filter((spec) => !spec.unapplied?.protocol);
    expect(applied.length).toBeGreaterThan(30);
    for (const spec of applied) {
      const sample =
        spec.flag === "--permission-prompt-tool"
          ? "stdio"
          : spec.value?.kind === "json" || spec.flag === "--json-schema"
            ? "{}"
            : "1";
      const value = spec.value ? [sample] : [];
      const args = parseProtocolArgs([spec.flag, ...value]);
      expect({ flag: spec.flag, warnings: args.warnings }).toEqual({ flag: spec.flag, warnings: [] });
    }
  });

  test("a flag accepted but not applied says why, once; an unknown one says it was ignored", () => {
    const args = parseProtocolArgs(["--task-budget", "5", "--channels", "a", "--no-such-flag", "v"]);
    expect(args.warnings).toEqual([
      `--task-budget is accepted but ${findFlag("protocol", "--task-budget")!.unapplied!.protocol}`,
      `--channels is accepted but ${findFlag("protocol", "--channels")!.unapplied!.protocol}`,
      "--no-such-flag v is not supported by cairn and was ignored",
    ]);
    expect(args.options).toEqual({});
  });
});

describe("the table", () => {
  test("print mode's choices are the ones its output takes (a choice the parser accepts is one it can print)", () => {
    expect(findFlag("print", "--output-format")!.value!.choices).toEqual(OUTPUT_FORMATS);
    expect(findFlag("print", "--tool-payloads")!.value!.choices).toEqual(TOOL_PAYLOAD_SHAPES);
  });

  test("no spelling names two flags, and every flag has a door (or the reason cairn refuses it) and a line of help", () => {
    const spellings = FLAGS.flatMap((spec) => [spec.flag, ...(spec.aliases ?? [])]);
    expect(spellings.filter((spelling, i) => spellings.indexOf(spelling) !== i)).toEqual([]);
    for (const spec of FLAGS) {
      expect(Object.keys(spec.doors).length > 0 !== (spec.refused !== undefined), spec.flag).toBe(true);
      expect(spec.help.length, spec.flag).toBeGreaterThan(0);
    }
  });
});

describe("cairn acp takes its flags from the table", () => {
  test("-m is --model there too; a bad --max-turns is a usage error (exit 2) naming it", async () => {
    const { exited, out } = spawnCli(["acp", "-m", MODEL, "--max-turns", "0"], {
      cwd: workspace(),
      env: cleanEnv(),
    });
    expect((await exited).code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("--max-turns must be a positive integer. Usage: cairn acp");
  });
});

describe(`the interactive mode: print mode's own flags say why they do not apply${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "--output-format and --fail-on-denial at a terminal without -p: one line each, with the table's reason",
    async () => {
      const { t } = await startCairn([], ["--output-format", "json", "--fail-on-denial"]);
      await ready(t);
      t.type(CTRL_D);
      expect((await t.exited).exitCode).toBe(0);
      const output = t.output();
      for (const flag of ["--output-format", "--fail-on-denial"])
        expect(output).toContain(`${flag} only applies to print mode (-p); ignored in the interactive mode.`);
      expect(output).not.toContain("--report only applies");
    },
  );
});
