import { randomUUID } from "node:crypto";
import { MessageQueue } from "../sdk/message-queue.js";
import type { SDKUserMessage } from "../sdk/messages.js";
import type { Options, PermissionResult } from "../sdk/options.js";
import type { Query } from "../sdk/query.js";
import { query } from "../sdk/query.js";
import { EXIT } from "../util/exit-codes.js";
import { parseProtocolArgs } from "./args.js";
import { Channel, type ControlRequest, type Frame } from "./channel.js";
import { bridgedHooks, type HostHookMatchers } from "./hooks-bridge.js";
import { initializeFailure, initializeOptions, initializeResponse } from "./initialize.js";
import { withHostServers } from "./mcp-bridge.js";

/**
 * The agent-SDK CLI protocol (docs/protocols.md): what the official agent SDKs (and the editor
 * adapters and providers built on them) speak to the CLI they spawn. Entered with
 * `--input-format stream-json`. stdin carries the host's user messages and control requests, stdout
 * the SDK's messages and control responses, one JSON object a line. Under the hood it is cairn's own
 * in-process `query()` in streaming-input mode: one turn per user message.
 *
 * Resolves the exit code: 0 when stdin ended and the last turn is done.
 */
export async function serveAgentSdkProtocol(
  argv: readonly string[],
  signal: AbortSignal,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const args = parseProtocolArgs(argv);
  for (const warning of args.warnings) process.stderr.write(`cairn: ${warning}\n`);
  const channel = new Channel();
  const prompts = new MessageQueue<SDKUserMessage>();
  let running: Query | undefined;
  let started: ((q: Query) => void) | undefined;
  const ready = new Promise<Query>((resolve) => {
    started = resolve;
  });

  channel.onAbandoned = () => running?.close();

  const start = (init: Record<string, unknown>) => {
    if (running) return running;
    const options = buildOptions(args.options, init, channel, args.permissionPromptStdio, env);
    running = query({ prompt: prompts, options });
    started?.(running);
    return running;
  };

  // With `--replay-user-messages`: the prompts whose turn has not started, echoed when it does.
  const toReplay: Frame[] = [];
  // `initialize` failed: the session ends there (initializeFailure says why).
  let initializeFailed = false;
  const reading = (async () => {
    for await (const frame of channel.frames()) {
      if (frame.type === "control_request") {
        await answer(frame as ControlRequest);
        if (initializeFailed) break;
      } else if (frame.type === "user") {
        start({});
        // The echo names the prompt by its uuid: one the host did not give is made here, and the
        // turn's user message gets the same.
        const prompt =
          args.replayUserMessages && typeof frame.uuid !== "string"
            ? { ...frame, uuid: randomUUID() }
            : frame;
        if (args.replayUserMessages) toReplay.push(prompt);
        prompts.push(prompt as unknown as SDKUserMessage);
      }
    }
    prompts.end();
  })();

  async function answer(request: ControlRequest): Promise<void> {
    const body = request.request;
    try {
      if (body.subtype === "initialize") {
        // Its hooks, system prompt and MCP servers shape the query when it starts: one that comes
        // after (a prompt or another request started it, or a second initialize) cannot be applied,
        // and is never answered as if it had been.
        if (running)
          throw new Error(
            "initialize came after the session had started (it must be the first request); its hooks, system prompt and MCP servers cannot be applied now",
          );
        const q = start(body);
        channel.respond(request, await initializeResponse(q, body));
        return;
      }
      const q = running ?? start({});
      switch (body.subtype) {
        case "interrupt":
          await q.interrupt();
          return channel.respond(request, { still_queued: [] });
        case "set_permission_mode":
          return channel.respond(request, (await q.setPermissionMode(body.mode as never)) ?? {});
        case "set_model":
          await q.setModel(typeof body.model === "string" ? body.model : undefined);
          return channel.respond(request, {});
        case "set_max_thinking_tokens":
          await q.setMaxThinkingTokens((body.max_thinking_tokens as number | null | undefined) ?? null);
          return channel.respond(request, {});
        case "mcp_status":
          return channel.respond(request, { mcpServers: await q.mcpServerStatus() });
        case "mcp_reconnect":
          await q.reconnectMcpServer(String(body.serverName));
          return channel.respond(request, {});
        case "mcp_toggle":
          await q.toggleMcpServer(String(body.serverName), body.enabled === true);
          return channel.respond(request, {});
        case "mcp_set_servers":
          return channel.respond(request, await q.setMcpServers(body.servers as never));
        case "rewind_files":
          return channel.respond(
            request,
            await q.rewindFiles(String(body.user_message_id), { dryRun: body.dry_run === true }),
          );
        default:
          channel.send({
            type: "control_response",
            response: {
              subtype: "error",
              request_id: request.request_id,
              error: `Unsupported control request subtype: ${body.subtype}`,
              error_code: "unsupported_request",
            },
          });
      }
    } catch (error) {
      channel.fail(request, (error as Error).message);
      if (body.subtype === "initialize") {
        initializeFailed = true;
        running?.close();
        process.stderr.write(initializeFailure((error as Error).message));
      }
    }
  }

  // The SDKs ask for turn boundaries (`running` … `idle`). A program that asks itself
  // (CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1: Zed's adapter ends a prompt on `idle`) gets them from the
  // query, as in-process (src/sdk/turn-frames.ts reads the same variable). Asked for by the SDK alone,
  // they are its bookkeeping, sent here marked `sdk_host_only`, which it keeps from the program (else
  // a program's first message is a `running` before `init`).
  const programAsks = env.CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS === "1";
  const reportsState = !programAsks && env.CLAUDE_CODE_SDK_READS_SESSION_STATE === "1";
  const onSignal = () => running?.close();
  signal.addEventListener("abort", onSignal, { once: true });
  try {
    // A host that closes stdin without a message gets a clean exit, no query at all.
    const q = await Promise.race([ready, reading.then(() => undefined)]);
    if (q)
      for await (const message of q) {
        const frame = message as unknown as Frame;
        if (reportsState && frame.type === "system" && frame.subtype === "init")
          sendState(channel, frame, "running");
        channel.send(frame);
        const replayed = frame.type === "system" && frame.subtype === "init" ? toReplay.shift() : undefined;
        if (replayed) channel.send(replayOf(replayed, frame));
        if (reportsState && frame.type === "result") sendState(channel, frame, "idle");
      }
    await reading;
    return initializeFailed ? EXIT.failure : EXIT.success;
  } finally {
    signal.removeEventListener("abort", onSignal);
  }
}

/** The query's options: the flags', then what `initialize` adds (prompt, schema, hooks, host MCP servers). */
function buildOptions(
  fromArgs: Options,
  init: Record<string, unknown>,
  channel: Channel,
  permissionPromptStdio: boolean,
  env: NodeJS.ProcessEnv,
): Options {
  const fromInit = initializeOptions(init);
  const options: Options = { ...fromArgs, ...fromInit };
  // `--mcp-config` servers and those `initialize` delivers together.
  if (fromArgs.mcpServers && fromInit.mcpServers)
    options.mcpServers = { ...fromArgs.mcpServers, ...fromInit.mcpServers };
  // The SDK's `enableFileCheckpointing` reaches its CLI as this variable.
  if (env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING === "true") options.enableFileCheckpointing = true;
  const mcpServers = withHostServers(options.mcpServers, init.sdkMcpServers, channel);
  if (mcpServers) options.mcpServers = mcpServers as Options["mcpServers"];
  if (init.hooks && typeof init.hooks === "object")
    options.hooks = bridgedHooks(init.hooks as HostHookMatchers, channel) as Options["hooks"];
  if (permissionPromptStdio) {
    options.canUseTool = async (
      toolName,
      input,
      { signal, toolUseID, suggestions, blockedPath, decisionReason },
    ) =>
      (await channel.request(
        {
          subtype: "can_use_tool",
          tool_name: toolName,
          input,
          tool_use_id: toolUseID,
          ...(suggestions && suggestions.length > 0 ? { permission_suggestions: suggestions } : {}),
          ...(blockedPath !== undefined ? { blocked_path: blockedPath } : {}),
          ...(decisionReason !== undefined ? { decision_reason: decisionReason } : {}),
        },
        signal,
      )) as unknown as PermissionResult;
  }
  return options;
}

/**
 * A prompt echoed back when its turn starts (`--replay-user-messages`), as the convention's CLI does
 * (`SDKUserMessageReplay`): `isReplay: true`, its `uuid`, the session's id. Hosts that queue prompts
 * (Zed's adapter) take the echo of a queued one as "that prompt's turn has begun".
 */
function replayOf(prompt: Frame, init: Frame): Frame {
  return { ...prompt, session_id: init.session_id, isReplay: true };
}

/** `system`/`session_state_changed` for the SDK alone: a turn started (`running`) or is over (`idle`). */
function sendState(channel: Channel, about: Frame, state: "running" | "idle"): void {
  channel.send({
    type: "system",
    subtype: "session_state_changed",
    state,
    sdk_host_only: true,
    session_id: about.session_id,
    uuid: randomUUID(),
  });
}
