// The sandbox's cost per shell command: the same `echo N` turns through Bash with the sandbox off
// and on, alternating run by run; the figure is the median time from a tool call's `started` to its
// `completed` event on cairn's stdout (spawning the shell, or bubblewrap and then the shell, to the
// output being back).
import { existsSync } from "node:fs";
import {
  loadTesting,
  parseLines,
  row,
  runCli,
  serverEnv,
  tempWorkspace,
  unavailable,
} from "../lib/harness.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const TITLE = "one Bash command (`echo N`): started → completed, sandbox off / on";

export const sandboxPerCommand = {
  id: "sandbox-per-command",
  title: TITLE,
  /** @param {Context} ctx */
  async run(ctx) {
    if (process.platform !== "linux" || !existsSync("/usr/bin/bwrap")) {
      return unavailable(this.id, this.title, "needs Linux with bubblewrap (/usr/bin/bwrap)", undefined);
    }
    const turns = ctx.quick ? 5 : 20;
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    const cwd = tempWorkspace();
    /** @type {Record<"disabled" | "enabled", number[]>} */
    const spans = { disabled: [], enabled: [] };
    try {
      for (let i = 0; i < ctx.warmup + ctx.runs; i++) {
        for (const mode of /** @type {const} */ (["disabled", "enabled"])) {
          for (let n = 1; n <= turns; n++) server.append(reply().tool("Bash", { command: `echo ${n}` }));
          server.append(reply().text("All echoed."));
          /** @type {Map<string, number>} */
          const startedAt = new Map();
          /** @type {number[]} */
          const own = [];
          let pending = "";
          const args = ["-p", "Echo", "--output-format", "stream-json", "--force", "--sandbox", mode];
          const run = await runCli(args, {
            env: serverEnv(server),
            cwd,
            onStdout(chunk, at) {
              const lines = (pending + chunk.toString("utf8")).split("\n");
              pending = lines.pop() ?? "";
              for (const line of lines) {
                if (!line.startsWith('{"type":"tool_call"')) continue;
                const event = JSON.parse(line);
                if (event.subtype === "started") startedAt.set(event.call_id, at);
                else own.push(at - (startedAt.get(event.call_id) ?? at));
              }
            },
          });
          const completed = parseLines(run.stdout).filter(
            (l) => l.type === "tool_call" && l.subtype === "completed",
          );
          if (completed.length !== turns || JSON.stringify(completed).includes('"exitCode":1')) {
            throw new Error(
              `sandbox ${mode}: expected ${turns} successful commands, got ${completed.length}`,
            );
          }
          if (i >= ctx.warmup) spans[mode].push(median(own));
        }
      }
    } finally {
      await server.close();
    }
    const off = median(spans.disabled);
    return [
      row({
        id: "bash-command-unsandboxed",
        title: "one Bash command, --sandbox disabled",
        unit: "ms",
        values: spans.disabled,
      }),
      row({
        id: "bash-command-sandboxed",
        title: "one Bash command, --sandbox enabled (bubblewrap)",
        unit: "ms",
        values: spans.enabled,
        details: { turnsPerRun: turns, costOfSandboxMs: round2(median(spans.enabled) - off) },
        note: "median per command of each run's started → completed spans; the difference is what bubblewrap adds",
      }),
    ];
  },
};
