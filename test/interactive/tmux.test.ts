import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { userTexts } from "./cairn-terminal.js";

/**
 * The interactive mode inside tmux (docs/interactive.md, "Keys"): the keys that must work there
 * without configuration (Alt+Enter, Ctrl+J, Enter, Esc), and the scrollback tmux keeps after a
 * long answer. tmux runs on a private socket; what it shows is read with `capture-pane`.
 */
const tmuxMissing = spawnSync("tmux", ["-V"]).status === 0 ? "" : " (skipped: tmux is not installed)";
const sockets: string[] = [];

afterEach(() => {
  for (const socket of sockets.splice(0)) spawnSync("tmux", ["-S", socket, "kill-server"]);
});

describe(`interactive mode in tmux${tmuxMissing}`, () => {
  test.skipIf(tmuxMissing !== "")(
    "in tmux: Alt+Enter and Ctrl+J add lines, Enter sends, and a long answer stays whole in tmux's scrollback",
    async () => {
      const answer = Array.from({ length: 60 }, (_, i) => `Answer row ${i + 1} of sixty.`).join("\n");
      const server = await startServer([reply().text(answer), reply().text("Second answer.")]);
      const dir = workspace();
      const socket = join(tempDir("cairn-tmux-"), "socket");
      sockets.push(socket);
      const env = { ...serverEnv(server), TERM: "xterm-256color" } as NodeJS.ProcessEnv;
      delete env.TMUX;
      const tmux = (...args: string[]) =>
        execFileSync("tmux", ["-S", socket, ...args], { env, encoding: "utf8" });
      const command = [process.execPath, CLI, "--model", MODEL].map((arg) => `'${arg}'`).join(" ");
      tmux("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-c", dir, command);
      // The whole history of the pane, scrollback included.
      const pane = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-");
      const waitFor = async (check: (text: string) => boolean, what: string) => {
        const limit = Date.now() + 20_000;
        while (true) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const text = pane();
          if (check(text)) return text;
          if (Date.now() > limit) throw new Error(`timed out waiting for ${what}; the pane:\n${text}`);
        }
      };
      await waitFor((text) => text.includes("(shift+tab)"), "the input box");
      tmux("send-keys", "-l", "first line");
      tmux("send-keys", "M-Enter");
      tmux("send-keys", "-l", "second line");
      tmux("send-keys", "C-j");
      tmux("send-keys", "-l", "third line");
      await waitFor((text) => text.includes("third line"), "three lines typed");
      expect(server.requests).toHaveLength(0);
      tmux("send-keys", "Enter");
      await waitFor((text) => text.includes("Answer row 60 of sixty."), "the long answer");
      expect(userTexts(server.requests[0]!.body)).toEqual(["first line\nsecond line\nthird line"]);
      tmux("send-keys", "-l", "again");
      tmux("send-keys", "Enter");
      const after = await waitFor((text) => text.includes("Second answer."), "the second answer");
      // Every row of the long answer is in tmux's history once, in order; the live region once.
      const rows = after.split("\n");
      for (let i = 1; i <= 60; i++)
        expect(rows.filter((row) => row.trim() === `Answer row ${i} of sixty.`)).toHaveLength(1);
      expect(rows.findIndex((row) => row.includes("Answer row 1 of"))).toBeLessThan(
        rows.findIndex((row) => row.includes("Answer row 60 of")),
      );
      expect(rows.filter((row) => row.includes("(shift+tab)"))).toHaveLength(1);
      tmux("send-keys", "C-d");
    },
  );
});
