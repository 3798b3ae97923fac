import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runAgentLoop } from "../../src/engine/loop.js";
import { createPermissionGate } from "../../src/permissions/index.js";
import { ReplayProvider } from "../../src/providers/replay.js";
import { JsonlTranscriptStore } from "../../src/sessions/index.js";
import { reply, toStep } from "../../src/testing/index.js";
import { builtinTools, childEnvironment } from "../../src/tools/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-test-0123456789-secret",
  CAIRN_TEST_DEPLOY_TOKEN: "tok-9876543210-secret",
  DB_PASSWORD: "hunter2-secret",
};

describe("secrets stay out of tool output and transcripts", () => {
  test("a secret in the environment is absent from the tool output and from the transcript", async () => {
    const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-secrets-")));
    dirs.push(base);
    const store = new JsonlTranscriptStore({ cairnHome: path.join(base, "home") });
    const writer = await store.create(base, "secret-run");
    const env = childEnvironment({ ...process.env, ...SECRETS });
    const command = 'env; echo "[$ANTHROPIC_API_KEY][$CAIRN_TEST_DEPLOY_TOKEN][$DB_PASSWORD]"';
    const provider = new ReplayProvider(
      { version: 1, steps: [toStep(reply().tool("Bash", { command })), toStep(reply().text("done"))] },
      "test",
    );
    const gate = createPermissionGate({
      mode: "bypassPermissions",
      workspace: base,
      env,
      tools: builtinTools(),
    });
    const outputs: string[] = [];
    for await (const event of runAgentLoop({
      sessionId: "secret-run",
      cwd: base,
      provider,
      model: "replay",
      providerModel: "replay",
      system: "",
      tools: builtinTools(),
      history: [],
      prompt: "print the environment",
      signal: new AbortController().signal,
      canUseTool: gate,
      env,
    })) {
      writer.recordEvent(event);
      if (event.type === "tool_end") outputs.push(event.outcome.content);
    }
    writer.close();

    expect(outputs[0]).toContain("[][][]");
    const transcript = readFileSync(writer.path, "utf8");
    expect(transcript).toContain("[][][]");
    for (const value of Object.values(SECRETS)) {
      expect(outputs.join("\n")).not.toContain(value);
      expect(transcript).not.toContain(value);
    }
  });

  test("transcripts are private even under a permissive umask", async () => {
    const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-umask-")));
    dirs.push(base);
    const previous = process.umask(0);
    try {
      const store = new JsonlTranscriptStore({ cairnHome: path.join(base, "home") });
      const writer = await store.create(base, "private");
      writer.close();
      expect(statSync(writer.path).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(writer.path)).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(base, "home")).mode & 0o777).toBe(0o700);
      const reopened = await store.open("private");
      reopened.close();
      expect(statSync(writer.path).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });
});
