import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";

/**
 * What a one-line run loads. Each of these was once on every run's start-up path for a feature the
 * run did not use, and cost start-up time (docs/performance.md, "Start-up"): they load on first use.
 * The run is a real one (the built CLI, a model over HTTP on 127.0.0.1); a preloaded script records
 * Node's list of loaded built-in modules and every file `require` loaded, at exit.
 */
describe("a one-line run's start-up path", () => {
  test("loads no built-in module or package a one-line answer does not use, and makes no Intl object", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-lean-"));
    const record = join(dir, "loaded.json");
    const preload = join(dir, "record.cjs");
    writeFileSync(
      preload,
      // Every Intl object (toLocaleString and localeCompare make one) builds ICU's set of locales
      // first: about 110 M instructions, 14 % of a one-line run, when web-fetch's description once
      // formatted a number with toLocaleString.
      `const intl = [];
      for (const name of ["NumberFormat", "DateTimeFormat", "Collator", "Segmenter", "PluralRules", "ListFormat"]) {
        const Original = Intl[name];
        Intl[name] = new Proxy(Original, { construct(target, args) { intl.push(name); return Reflect.construct(target, args); }, apply(target, self, args) { intl.push(name); return Reflect.apply(target, self, args); } });
      }
      for (const [proto, method] of [[Number.prototype, "toLocaleString"], [String.prototype, "localeCompare"], [Date.prototype, "toLocaleString"]]) {
        const original = proto[method];
        proto[method] = function (...args) { intl.push(method); return original.apply(this, args); };
      }
      process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify({
        builtins: process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)),
        files: Object.keys(require.cache),
        intl,
      })));\n`,
    );
    const server = await startServer([reply().text("Lean.")]);
    const cli = spawnCli(["-p", "hi"], {
      cwd: workspace(),
      env: { ...serverEnv(server), NODE_OPTIONS: `--require ${preload}` },
    });
    expect((await cli.exited).code).toBe(0);
    expect(cli.out.stdout).toBe("Lean.\n");
    const loaded = JSON.parse(readFileSync(record, "utf8")) as {
      builtins: string[];
      files: string[];
      intl: string[];
    };
    const notNeeded = [
      "internal/deps/undici/undici", // Node's fetch: the model clients send over node:http
      "https", // and "tls": the model is on http://127.0.0.1
      "tls",
      "internal/webstreams/readablestream", // the Anthropic client's body checks
      "perf_hooks", // performance.now()
      "crypto", // session ids and the workspace key's hash (src/util/random-id.ts, @noble/hashes)
      "worker_threads", // Grep's regular-expression worker
      "child_process", // shell commands, hooks, rg, the sandbox probe (src/util/spawn.ts)
      "dgram", // and what child_process brings
      "fs/promises", // asynchronous file access (src/util/fs-async.ts)
      "internal/readline/interface", // and what fs/promises brings
    ];
    expect(loaded.builtins.filter((name) => notNeeded.includes(name))).toEqual([]);
    // The CLI is one bundle compiled from its code cache; nothing is required from node_modules
    // (tinyglobby's picomatch, the shell parser, ajv load when a tool needs them).
    expect(loaded.files.filter((file) => file.includes("node_modules"))).toEqual([]);
    expect(loaded.intl).toEqual([]);
  });
});
