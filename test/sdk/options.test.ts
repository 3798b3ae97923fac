import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, expectTypeOf, test } from "vitest";
import type { Options } from "../../src/index.js";
import {
  InvalidOptionsError,
  NOT_APPLICABLE_OPTIONS,
  NOT_YET_SUPPORTED_OPTIONS,
  SUPPORTED_OPTIONS,
  validateOptions,
} from "../../src/sdk/options.js";

/** Every field of `Options` in the reference SDK (agent-sdk-convention.md §3, "all 70 declared fields"). */
const REFERENCE_OPTIONS = [
  "abortController",
  "additionalDirectories",
  "projectConfigRoot",
  "agent",
  "agents",
  "allowedTools",
  "canUseTool",
  "continue",
  "cwd",
  "disallowedTools",
  "toolAliases",
  "tools",
  "env",
  "executable",
  "executableArgs",
  "extraArgs",
  "fallbackModel",
  "enableFileCheckpointing",
  "toolConfig",
  "forkSession",
  "betas",
  "hooks",
  "onElicitation",
  "onUserDialog",
  "supportedDialogKinds",
  "perTaskStopAffordance",
  "persistSession",
  "sessionStore",
  "sessionStoreFlush",
  "loadTimeoutMs",
  "includeHookEvents",
  "includePartialMessages",
  "forwardSubagentText",
  "verbatimPrompts",
  "thinking",
  "effort",
  "maxThinkingTokens",
  "maxTurns",
  "maxBudgetUsd",
  "taskBudget",
  "mcpServers",
  "mcpServersDelivery",
  "model",
  "outputFormat",
  "pathToClaudeCodeExecutable",
  "permissionMode",
  "planModeInstructions",
  "allowDangerouslySkipPermissions",
  "permissionPromptToolName",
  "permissionPrompts",
  "plugins",
  "pluginDelivery",
  "promptSuggestions",
  "agentProgressSummaries",
  "resume",
  "sessionId",
  "resumeSessionAt",
  "resumeDropsTurn",
  "sandbox",
  "settings",
  "managedSettings",
  "settingSources",
  "skills",
  "debug",
  "debugFile",
  "stderr",
  "strictMcpConfig",
  "systemPrompt",
  "title",
  "spawnClaudeCodeProcess",
] as const;

let warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

const invalid = (options: unknown): InvalidOptionsError => {
  try {
    validateOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return error as InvalidOptionsError;
  }
  throw new Error("expected validateOptions to throw");
};

describe("option names", () => {
  test("every option of the reference SDK is known: supported, not yet supported, or not applicable", () => {
    expect(REFERENCE_OPTIONS).toHaveLength(70);
    const known = new Set([
      ...SUPPORTED_OPTIONS,
      ...Object.keys(NOT_YET_SUPPORTED_OPTIONS),
      ...Object.keys(NOT_APPLICABLE_OPTIONS),
    ]);
    expect(REFERENCE_OPTIONS.filter((name) => !known.has(name))).toEqual([]);
    // cairn's own additions are exactly these.
    expect(
      [...known].filter((name) => !(REFERENCE_OPTIONS as readonly string[]).includes(name)).sort(),
    ).toEqual(["apiKey", "baseURL", "contextWindow", "databaseUrl"]);
    // The Options type declares each of them.
    expectTypeOf<(typeof REFERENCE_OPTIONS)[number]>().toMatchTypeOf<keyof Options>();
  });

  test("an unknown option is ignored, as the reference does, with one warning naming the closest known name", async () => {
    const resolved = validateOptions({ maxturns: 3, appendSystemPrompt: "Be brief." });
    validateOptions({ maxturns: 4 });
    expect("maxturns" in resolved).toBe(false);
    expect("appendSystemPrompt" in resolved).toBe(false);
    expect(resolved.optionNotes).toEqual([
      'cairn query(): unknown option "maxturns" ignored. Did you mean "maxTurns"? See docs/sdk.md for the options.',
      'cairn query(): unknown option "appendSystemPrompt" ignored. See docs/sdk.md for the options.',
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => w.message)).toEqual(resolved.optionNotes);
    expect(warnings.every((w) => (w as Error & { code?: string }).code === "CAIRN_SDK_OPTION_UNKNOWN")).toBe(
      true,
    );
  });

  test("every option of the reference SDK has a row in docs/sdk.md saying what it does in cairn", () => {
    const docs = readFileSync(new URL("../../docs/sdk.md", import.meta.url), "utf8");
    const rows = docs.split("\n").filter((line) => line.startsWith("|"));
    const documented = (name: string) => rows.some((row) => row.includes(`\`${name}\``));
    // The not-applicable ones are a paragraph of their own.
    const notApplicable = docs.slice(docs.indexOf("### Not applicable (in-process)"));
    expect(
      REFERENCE_OPTIONS.filter(
        (name) => !documented(name) && !notApplicable.slice(0, 800).includes(`\`${name}\``),
      ),
    ).toEqual([]);
  });

  test("options that are not an object throw", () => {
    expect(invalid("fast").message).toMatch(/options must be an object/);
    expect(invalid([1]).message).toMatch(/options must be an object, got an array/);
    expect(validateOptions(undefined).includePartialMessages).toBe(false);
  });
});

describe("option values", () => {
  test.each([
    [{ maxTurns: 0 }, "maxTurns", /expected number to be >0/],
    [{ maxTurns: 1.5 }, "maxTurns", /int/i],
    [{ model: 3 }, "model", /expected string/],
    [{ permissionMode: "yolo" }, "permissionMode", /"default"/],
    [{ includePartialMessages: "yes" }, "includePartialMessages", /expected boolean/],
    [{ allowedTools: "Bash" }, "allowedTools", /expected array/],
    [{ allowedTools: ["Bash", 1] }, "allowedTools.1", /expected string/],
    [{ env: { A: 1 } }, "env.A", /./],
    [{ abortController: new AbortController().signal }, "abortController", /expected an AbortController/],
    [{ canUseTool: "allow" }, "canUseTool", /expected a function/],
    [{ systemPrompt: { type: "preset", preset: "other" } }, "systemPrompt", /./],
    [{ baseURL: "not a url" }, "baseURL", /URL/i],
    [{ outputFormat: { type: "json_schema" } }, "outputFormat.schema", /./],
    [{ maxBudgetUsd: -1 }, "maxBudgetUsd", /./],
    [{ stderr: 1 }, "stderr", /expected a function/],
    [{ sessionId: "../etc/passwd" }, "sessionId", /expected a session id/],
    [{ sessionId: "" }, "sessionId", /expected a session id/],
    [{ resume: "" }, "resume", /./],
    [
      { allowedTools: ["Bash(ls"] },
      "allowedTools.0",
      /Invalid permission rule "Bash\(ls": missing closing parenthesis/,
    ],
    [{ disallowedTools: ["Read", "9lives"] }, "disallowedTools.1", /not a tool name/],
  ])("%j is rejected as %s", (options, option, pattern) => {
    const error = invalid(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain(`invalid option "${option}"`);
    expect(error.message).toMatch(pattern);
    expect(error.message).toMatch(/\(got .+\)\.$/);
  });

  test("cwd must be an existing directory and is made absolute", () => {
    expect(invalid({ cwd: "/definitely/not/here" }).message).toMatch(
      /"cwd": \/definitely\/not\/here is not a directory/,
    );
    expect(validateOptions({ cwd: "." }).cwd).toBe(process.cwd());
    expect(validateOptions({}).cwd).toBe(process.cwd());
  });

  test("sessionId names a new session: it cannot be combined with resume or continue", () => {
    expect(invalid({ sessionId: "s-1", resume: "s-0" }).message).toMatch(
      /invalid option "sessionId": .*cannot be combined with "resume"/,
    );
    expect(invalid({ sessionId: "s-1", continue: true }).option).toBe("sessionId");
    expect(() => validateOptions({ sessionId: "s-1", continue: false })).not.toThrow();
  });

  test("undefined values are ignored, like absent options", () => {
    expect(() => validateOptions({ model: undefined, maxTurns: undefined })).not.toThrow();
  });

  test("supported options of the right type pass", () => {
    const options: Options = {
      cwd: ".",
      model: "anthropic/claude-sonnet-5-5",
      includePartialMessages: true,
      allowedTools: ["Bash", "Read"],
      disallowedTools: ["Write"],
      tools: { type: "preset", preset: "claude_code" },
      permissionMode: "acceptEdits",
      maxTurns: 5,
      systemPrompt: { type: "preset", preset: "claude_code", append: "Be brief." },
      abortController: new AbortController(),
      env: { PATH: "/bin", UNSET: undefined },
      canUseTool: async () => ({ behavior: "allow" }),
      sessionId: "s-1",
      apiKey: "k",
      baseURL: "http://127.0.0.1:1",
    };
    expect(validateOptions(options).includePartialMessages).toBe(true);
    expect(warnings).toEqual([]);
  });
});

describe("accepted but not yet supported", () => {
  test("accepted, with one process warning per option name", async () => {
    validateOptions({ loadTimeoutMs: 5, promptSuggestions: true });
    validateOptions({ loadTimeoutMs: 6 });
    await new Promise((resolve) => setImmediate(resolve));
    const messages = warnings.map((w) => w.message);
    expect(messages.filter((m) => m.includes('"loadTimeoutMs"'))).toHaveLength(1);
    for (const name of ["loadTimeoutMs", "promptSuggestions"]) {
      expect(messages.some((m) => m.includes(`option "${name}" is accepted but not yet supported`))).toBe(
        true,
      );
    }
    expect(
      warnings.every((w) => (w as Error & { code?: string }).code === "CAIRN_SDK_OPTION_NOT_YET_SUPPORTED"),
    ).toBe(true);
  });

  test("session and permission options are supported: no warning", async () => {
    validateOptions({ resume: "abc", forkSession: true, persistSession: false });
    validateOptions({
      continue: true,
      additionalDirectories: ["/tmp"],
      allowDangerouslySkipPermissions: true,
      resumeSessionAt: "5f0c2a8e-0000-5000-8000-000000000000",
      betas: ["context-1m-2025-08-07"],
      stderr: () => {},
    });
    validateOptions({ permissionPromptToolName: "mcp__approver__prompt" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });

  test("resumeSessionAt needs a session to resume; permissionPromptToolName and canUseTool exclude each other", () => {
    expect(invalid({ resumeSessionAt: "x" }).option).toBe("resumeSessionAt");
    const both = invalid({ permissionPromptToolName: "mcp__a__b", canUseTool: async () => null });
    expect(both.option).toBe("permissionPromptToolName");
    expect(both.message).toMatch(/pass one of them/);
  });

  test("options about the CLI process are accepted (executable: any path) with one warning each: no effect", async () => {
    const options = {
      pathToClaudeCodeExecutable: "/usr/bin/claude",
      executable: process.execPath,
      executableArgs: ["--no-warnings"],
      extraArgs: { verbose: null },
      spawnClaudeCodeProcess: () => ({}),
    };
    const resolved = validateOptions(options);
    validateOptions(options);
    await new Promise((resolve) => setImmediate(resolve));
    const names = Object.keys(options);
    expect(warnings.map((w) => w.message)).toEqual(
      names.map((name) =>
        name === "extraArgs"
          ? `cairn query(): option "extraArgs" has no effect for --verbose: cairn runs the agent in this process, there is no CLI child process to configure (of the CLI's flags, only --replay-user-messages applies).`
          : `cairn query(): option "${name}" has no effect: cairn runs the agent in this process, there is no CLI child process to configure.`,
      ),
    );
    expect(resolved.optionNotes).toHaveLength(names.length);
  });

  test("extraArgs with only --replay-user-messages, which cairn applies, warns nothing", async () => {
    const resolved = validateOptions({ extraArgs: { "replay-user-messages": "" } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
    expect(resolved.optionNotes).toEqual([]);
  });
});
