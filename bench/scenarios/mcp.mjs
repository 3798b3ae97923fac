// Time to the first model request with three stdio MCP servers configured (the real
// @modelcontextprotocol/server-everything from npm), against the same run with none, paired in one
// loop. Measured from spawn to the moment the scripted server receives the request.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { cliEntry, loadTesting, ROOT, row, serverEnv, tempWorkspace, unavailable } from "../lib/harness.mjs";
import { timeProcess } from "../lib/processes.mjs";
import { median, round2 } from "../lib/stats.mjs";

/** @typedef {import("../run.mjs").Context} Context */

const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

export const mcpStartup = {
  id: "mcp-startup-3",
  title: "first model request with 3 stdio MCP servers (vs none)",
  /** @param {Context} ctx */
  async run(ctx) {
    if (!existsSync(EVERYTHING))
      return unavailable(
        this.id,
        this.title,
        "@modelcontextprotocol/server-everything is not installed",
        undefined,
      );
    const { startScriptedServer, reply } = await loadTesting();
    const server = await startScriptedServer({ steps: [] });
    const servers = Object.fromEntries(
      ["a", "b", "c"].map((name) => [name, { command: process.execPath, args: [EVERYTHING] }]),
    );
    const config = JSON.stringify({ mcpServers: servers });
    try {
      const cwd = tempWorkspace();
      const env = serverEnv(server);
      const once = async (/** @type {string[]} */ extra) => {
        server.append(reply().text("Hi."));
        const before = server.requests.length;
        const started = performance.timeOrigin + performance.now();
        const run = await timeProcess(process.execPath, [cliEntry(), "-p", "hi", ...extra], {
          env,
          cwd,
        });
        if (run.code !== 0) throw new Error(`cairn exited ${run.code}: ${run.stderr}`);
        const request = server.requests[before];
        if (!request) throw new Error("no model request arrived");
        return request.receivedAt - started;
      };
      for (let i = 0; i < ctx.warmup; i++) {
        await once([]);
        await once(["--mcp-config", config]);
      }
      /** @type {number[]} */
      const none = [];
      /** @type {number[]} */
      const three = [];
      for (let i = 0; i < ctx.runs; i++) {
        none.push(await once([]));
        three.push(await once(["--mcp-config", config]));
      }
      return row({
        id: this.id,
        title: this.title,
        unit: "ms",
        values: three,
        details: {
          noServersMedianMs: round2(median(none)),
          threeServersMedianMs: round2(median(three)),
          addedMs: round2(median(three) - median(none)),
          ratio: round2(median(three) / median(none)),
        },
        note: "servers connect in parallel while the model is resolved; details.addedMs is their cost",
      });
    } finally {
      await server.close();
    }
  },
};
