import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { query } from "../../src/index.js";
import { sandboxSettingsFromSdk } from "../../src/sandbox/sdk-option.js";
import { reply } from "../../src/testing/index.js";
import { needsSandbox, pathWithoutBwrap, sandboxUnavailable } from "../security/sandbox-helpers.js";
import {
  cleanUp,
  collect,
  envFor,
  labels,
  REPO,
  result,
  runQuery,
  startServer,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Outside the workspace and outside /tmp (which is private in the sandbox anyway). */
function outsideDir(): string {
  const dir = mkdtempSync(join(REPO, ".sdk-sandbox-test-"));
  dirs.push(dir);
  return dir;
}

const writeOutside = (dir: string) => [
  reply().tool("Bash", { command: `echo x > ${dir}/escaped` }),
  reply().text("done"),
];

describe("SDK sandbox option (convention shape)", () => {
  test("maps enabled / failIfUnavailable / filesystem / network.allowAll, and names what it ignores", () => {
    expect(sandboxSettingsFromSdk({ enabled: false }).settings).toEqual({ mode: "disabled" });
    expect(sandboxSettingsFromSdk({ enabled: true }).settings).toEqual({ mode: "auto" });
    expect(sandboxSettingsFromSdk({ enabled: true, failIfUnavailable: true }).settings).toEqual({
      mode: "enabled",
    });
    const mapped = sandboxSettingsFromSdk(
      {
        filesystem: { allowWrite: ["/data"], denyRead: ["/x", "secret.txt"], denyWrite: ["~/notes"] },
        network: { allowedDomains: ["github.com"] },
        excludedCommands: ["docker"],
      },
      { cwd: "/work", home: "/home/me" },
    );
    expect(mapped.settings).toEqual({
      // A deny list makes the sandbox's absence worth a word: auto, not the silent default.
      mode: "auto",
      extraWritable: ["/data"],
      readDenied: ["/x", "/work/secret.txt"],
      writeDenied: ["/home/me/notes"],
      allowedDomains: ["github.com"],
    });
    expect(mapped.ignored).toEqual(["excludedCommands (every command runs in the sandbox)"]);
    expect(mapped.refused).toEqual([]);
    // With the network open, a filter cairn cannot apply would leave it open: refused.
    const open = sandboxSettingsFromSdk({ network: { allowAll: true, deniedDomains: ["evil.example"] } });
    expect(open.refused.map((entry) => entry.key)).toEqual(["network.deniedDomains"]);
  });

  test.skipIf(sandboxUnavailable !== undefined)(
    `by default a query's shell commands run sandboxed; { enabled: false } turns it off${needsSandbox}`,
    async () => {
      const outside = outsideDir();
      const sandboxed = await runQuery(writeOutside(outside), { permissionMode: "bypassPermissions" });
      expect(result(sandboxed.messages).subtype).toBe("success");
      expect(existsSync(join(outside, "escaped"))).toBe(false);

      await runQuery(writeOutside(outside), {
        permissionMode: "bypassPermissions",
        sandbox: { enabled: false },
      });
      expect(existsSync(join(outside, "escaped"))).toBe(true);
    },
  );

  test("without the option, a query where bubblewrap is missing runs its commands and says nothing about it", async () => {
    const bin = await pathWithoutBwrap();
    const server = await startServer([reply().tool("Bash", { command: "touch made" }), reply().text("ok")]);
    const cwd = workspace();
    const stderr: string[] = [];
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd,
          env: { ...envFor(server), PATH: bin },
          permissionMode: "bypassPermissions",
          stderr: (line) => stderr.push(line),
        },
      }),
    );
    expect(labels(messages)).not.toContain("system/informational");
    expect(stderr).toEqual([]);
    expect(result(messages).subtype).toBe("success");
    expect(existsSync(join(cwd, "made"))).toBe(true);
  });

  test("ignored keys and the fallback come as system/informational warnings after system/init", async () => {
    const bin = await pathWithoutBwrap();
    const server = await startServer([reply().text("ok")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: { ...envFor(server), PATH: bin },
          sandbox: {
            enabled: true,
            failIfUnavailable: false,
            excludedCommands: ["docker"],
            network: { allowedDomains: ["github.com"] },
          },
        },
      }),
    );
    expect(labels(messages).slice(0, 3)).toEqual([
      "system/init",
      "system/informational",
      "system/informational",
    ]);
    expect(messages[1]).toMatchObject({ tag: "sandbox", content: expect.stringMatching(/excludedCommands/) });
    // The domain list cannot hold without the sandbox: said in the same line.
    expect(messages[2]).toMatchObject({
      tag: "sandbox",
      content: expect.stringMatching(
        /not available: bubblewrap \(bwrap\) is not installed.*checker alone, and the network domain list .* is not enforced/,
      ),
    });
  });

  test("{ enabled: true } (failIfUnavailable defaults to true, as in the reference) fails the query where bubblewrap is missing; nothing runs", async () => {
    const bin = await pathWithoutBwrap();
    const server = await startServer([reply().tool("Bash", { command: "touch made" }), reply().text("ok")]);
    const cwd = workspace();
    const run = collect(
      query({
        prompt: "Go",
        options: {
          cwd,
          env: { ...envFor(server), PATH: bin },
          permissionMode: "bypassPermissions",
          sandbox: { enabled: true },
        },
      }),
    );
    await expect(run).rejects.toThrow(/command sandbox is not available/);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(cwd, "made"))).toBe(false);
  });
});
