// 50 model turns, each running `echo N` through the Bash tool: what cairn itself costs per turn,
// once the time inside the tool's child process and inside the model server is taken out.
import { loadTesting, parseLines, resultOf, row, runCli, serverEnv, tempWorkspace } from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { recordRequests } from "../lib/server-probe.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

export const bash50 = {
  id: "bash-50-turns",
  title: "50 turns of `echo N` via Bash: cairn's own time",
  /** @param {Context} ctx */
  async run(ctx) {
    const turns = ctx.quick ? 5 : 50;
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    const cwd = tempWorkspace();
    /** @type {Record<"own" | "total" | "tool" | "server" | "shell", number[]>} */
    const runs = { own: [], total: [], tool: [], server: [], shell: [] };
    try {
      for (let i = 0; i < ctx.warmup + ctx.runs; i++) {
        for (let n = 1; n <= turns; n++) server.append(reply().tool("Bash", { command: `echo ${n}` }));
        server.append(reply().text("All echoed."));
        const probe = recordRequests();
        /** @type {Map<string, number>} */
        const startedAt = new Map();
        /** @type {number[]} */
        const toolSpans = [];
        let pending = "";
        // Unsandboxed, so the figure stays comparable across versions (sandbox-per-command has its cost).
        const args = [
          "-p",
          `Echo 1 to ${turns}`,
          "--output-format",
          "stream-json",
          "--force",
          "--sandbox",
          "disabled",
        ];
        const run = await runCli(args, {
          env: serverEnv(server),
          cwd,
          onStdout(chunk, at) {
            const text = pending + chunk.toString("utf8");
            const lines = text.split("\n");
            pending = lines.pop() ?? "";
            for (const line of lines) {
              if (!line.startsWith('{"type":"tool_call"')) continue;
              const event = JSON.parse(line);
              if (event.subtype === "started") startedAt.set(event.call_id, at);
              else toolSpans.push(at - (startedAt.get(event.call_id) ?? at));
            }
          },
        });
        probe.stop();
        const result = resultOf(run.stdout);
        const completed = parseLines(run.stdout).filter(
          (l) => l.type === "tool_call" && l.subtype === "completed",
        );
        if (result.num_turns !== turns + 1 || completed.length !== turns) {
          throw new Error(`expected ${turns} tool calls in ${turns + 1} turns, got ${completed.length}`);
        }
        // The tools' own work, measured apart: the same shell command spawned from here.
        /** @type {number[]} */
        const shells = [];
        for (let k = 0; k < 5; k++) shells.push((await timeProcess("bash", ["-c", "echo 1"])).ms);
        if (i < ctx.warmup) continue;
        const serverMs = probe.records.reduce((sum, r) => sum + (r.finishedAt - r.arrivedAt), 0);
        const shellMs = median(shells) * turns;
        runs.total.push(run.ms);
        runs.server.push(serverMs);
        runs.tool.push(toolSpans.reduce((a, b) => a + b, 0));
        runs.shell.push(shellMs);
        runs.own.push(run.ms - shellMs - serverMs);
      }
    } finally {
      await server.close();
    }
    return row({
      id: this.id,
      title: turns === 50 ? this.title : `${turns} turns of \`echo N\` via Bash: cairn's own time`,
      unit: "ms",
      values: runs.own,
      target: { text: "≤ 600 ms", kind: "max", value: 600 },
      details: {
        turns,
        processWallMs: round2(median(runs.total)),
        shellChildrenMs: round2(median(runs.shell)),
        serverMs: round2(median(runs.server)),
        toolCallSpansMs: round2(median(runs.tool)),
        ownExcludingToolSpansMs: round2(median(runs.total) - median(runs.tool) - median(runs.server)),
      },
      note: "own = process wall − N × (bash -c 'echo 1' spawned directly) − time inside the server; includes Node's start-up",
    });
  },
};
