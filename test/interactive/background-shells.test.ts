import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CTRL_D, ENTER, FOOTER, ready, skipped, startCairn } from "./cairn-terminal.js";

/**
 * The model's background shells in the live region (docs/interactive.md, "The screen"): a row per
 * running shell, gone when it ends, and none left running once the user leaves.
 */

/** A `sleep` no other process on the machine runs: its command line finds it in /proc. */
const uniqueSleep = () => `sleep 3000.${Math.floor(Math.random() * 1e9)}`;

/** Whether a live process runs exactly this command line (zombies have none). */
function running(command: string): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      if (cmdline === command) return true;
    } catch {}
  }
  return false;
}

const ALLOW = ["--allowedTools", "Bash,KillShell,BashOutput"];
const row = (command: string, id = "bash_1") => `◇ ${id} in the background: ${command}`;
const shown = (rows: string[], text: string) => rows.some((line) => line.includes(text));

describe(`background shells in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "a running background shell has a row above the input after the turn ended; KillShell removes it and ends the process",
    async () => {
      const sleep = uniqueSleep();
      const { t } = await startCairn(
        [
          reply().tool("Bash", { command: sleep, description: "Wait", run_in_background: true }),
          reply().text("Started it."),
          reply().tool("KillShell", { shell_id: "bash_1" }),
          reply().text("Stopped it."),
        ],
        ["Start the wait", ...ALLOW],
      );
      await t.waitFor((text) => text.includes("Started it."), "the first answer");
      await t.waitFor(() => shown(t.screen(), row(sleep)), "the background shell's row");
      // Between the answer and the input box, in the live region (not in the scrollback).
      const screen = t.screen();
      const at = screen.findIndex((line) => line.includes(row(sleep)));
      expect(screen[at + 1]).toMatch(/^─+$/);
      // The shell may not have exec'd `sleep` yet when its row is drawn.
      await t.waitFor(() => running(sleep), "the sleep running");

      t.type(`Stop it${ENTER}`);
      await t.waitFor((text) => text.includes("Stopped it."), "the second answer");
      await t.waitFor(() => !shown(t.screen(), row(sleep)), "the row gone");
      expect(shown(t.all(), row(sleep))).toBe(false);
      expect(running(sleep)).toBe(false);
    },
  );

  test.skipIf(skipped !== "")("a background shell that ends on its own leaves the live region", async () => {
    const command = "until [ -f finish ]; do sleep 0.05; done";
    const { t, dir } = await startCairn(
      [
        reply().tool("Bash", { command, description: "Wait for the file", run_in_background: true }),
        reply().text("Waiting for the file."),
      ],
      ["Wait for the file", ...ALLOW],
    );
    await t.waitFor(() => shown(t.screen(), row(command)), "the background shell's row");
    await ready(t);
    writeFileSync(join(dir, "finish"), "");
    // Nothing typed: the shell's end alone redraws the live region.
    await t.waitFor(() => !shown(t.screen(), row(command)), "the row gone");
    expect(t.screen().some((line) => line.includes(FOOTER))).toBe(true);
  });

  for (const [how, keys] of [
    ["Ctrl+D", CTRL_D],
    ["/quit", `/quit${ENTER}`],
    ["/exit", `/exit${ENTER}`],
  ] as const)
    test.skipIf(skipped !== "")(`leaving by ${how} ends a background shell still running`, async () => {
      const sleep = uniqueSleep();
      const { t } = await startCairn(
        [
          reply().tool("Bash", { command: sleep, description: "Wait", run_in_background: true }),
          reply().text("Started it."),
        ],
        ["Start the wait", ...ALLOW],
      );
      await t.waitFor(() => shown(t.screen(), row(sleep)), "the background shell's row");
      // The shell may not have exec'd `sleep` yet when its row is drawn.
      await t.waitFor(() => running(sleep), "the sleep running");
      t.type(keys);
      const { exitCode } = await t.exited;
      expect(exitCode).toBe(0);
      expect(running(sleep)).toBe(false);
    });
});
