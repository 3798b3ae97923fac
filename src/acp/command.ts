import { Readable, Writable } from "node:stream";
import { agent as acpAgent, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { findFlag } from "../flags/flag-table.js";
import { numberValue, readFlags } from "../flags/flag-values.js";
import { EXIT, UsageError } from "../util/exit-codes.js";
import type { Interrupts } from "../util/signals.js";
import { CairnAgent } from "./agent.js";
import { SET_MODEL_METHOD, setModelParams } from "./config-options.js";

const USAGE =
  "Usage: cairn acp [--model <model>] [--max-turns <n>] (an ACP agent on stdin/stdout, for editors)";

/**
 * `cairn acp`: an Agent Client Protocol agent over stdio (docs/protocols.md). stdout carries only
 * the protocol's JSON-RPC lines; cairn's own notes go to stderr (the editor's agent log). Runs until
 * the client closes stdin or a signal comes; then every session's turn, tools and MCP servers end.
 */
export async function runAcp(
  args: string[],
  version: string,
  interrupts: Interrupts,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const settings = { version, env, ...parseAcpArgs(args) };
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const cairn = new CairnAgent(settings);
  const connection = acpAgent({ name: "cairn" })
    .onRequest(methods.agent.initialize, ({ params }) => cairn.initialize(params))
    .onRequest(methods.agent.authenticate, ({ params }) => cairn.authenticate(params))
    .onRequest(methods.agent.session.new, ({ params, client }) => cairn.newSession(params, client))
    .onRequest(methods.agent.session.load, ({ params, client }) => cairn.loadSession(params, client))
    .onRequest(methods.agent.session.prompt, ({ params, signal }) => cairn.prompt(params, signal))
    .onRequest(methods.agent.session.setMode, ({ params }) => cairn.setSessionMode(params))
    .onRequest(methods.agent.session.setConfigOption, ({ params }) => cairn.setSessionConfigOption(params))
    .onRequest(SET_MODEL_METHOD, setModelParams, ({ params }) => cairn.setSessionModel(params))
    .onRequest(methods.agent.session.close, ({ params }) => cairn.closeSession(params))
    .onNotification(methods.agent.session.cancel, ({ params }) => cairn.cancel(params))
    .connect(stream);
  const stopped = new Promise<void>((resolve) => {
    if (interrupts.signal.aborted) resolve();
    interrupts.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.race([connection.closed, stopped]);
  await cairn.closeAll();
  return interrupts.exitCode ?? EXIT.success;
}

/** `cairn acp`'s flags: those of the one flag table (src/flags/flag-table.ts) with the door `acp`. */
function parseAcpArgs(args: string[]): { model?: string; maxTurns?: number } {
  const settings: { model?: string; maxTurns?: number } = {};
  for (const read of readFlags(args, (spelling) => findFlag("acp", spelling))) {
    if (read.type !== "flag" || read.value === undefined || read.value === "") throw new UsageError(USAGE);
    if (read.spec.doors.acp === "model") settings.model = read.value;
    else {
      try {
        settings.maxTurns = numberValue(read.spec, read.value);
      } catch {
        throw new UsageError(`--max-turns must be a positive integer. ${USAGE}`);
      }
    }
  }
  return settings;
}
