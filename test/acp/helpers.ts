import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  type AgentRequestParamsByMethod,
  client as acpClient,
  type CancelNotification,
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { afterEach, expect } from "vitest";
import type { ScriptedServer } from "../../src/testing/index.js";
import { CLI, MODEL, serverEnv } from "../conformance/pm/helpers.js";

/**
 * `cairn acp` spawned as an editor spawns it (the built CLI, piped stdio), driven by the official
 * client side of `@agentclientprotocol/sdk` (a client app connected over the child's stdio). Every child is killed after its test, so nothing hangs.
 */
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

export type PermissionAnswer = (request: RequestPermissionRequest) => RequestPermissionResponse;

/** The editor's side: records every update and permission request, answers them with `answer`. */
export class RecordingClient {
  readonly notifications: SessionNotification[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  answer: PermissionAnswer = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
  readonly elicitations: CreateElicitationRequest[] = [];
  /** How a form (`elicitation/create`) is answered; default: declined. */
  fill: (request: CreateElicitationRequest) => CreateElicitationResponse = () => ({ action: "decline" });

  async elicit(request: CreateElicitationRequest): Promise<CreateElicitationResponse> {
    this.elicitations.push(request);
    return this.fill(request);
  }

  async requestPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    this.permissionRequests.push(request);
    return this.answer(request);
  }

  async sessionUpdate(notification: SessionNotification): Promise<void> {
    this.notifications.push(notification);
  }

  /** The updates received so far, of one kind (all when omitted), and forgets them with `take`. */
  updates<K extends SessionUpdate["sessionUpdate"]>(
    kind?: K,
  ): Extract<SessionUpdate, { sessionUpdate: K }>[] {
    return this.notifications
      .map((notification) => notification.update)
      .filter((update): update is Extract<SessionUpdate, { sessionUpdate: K }> =>
        kind === undefined ? true : update.sessionUpdate === kind,
      );
  }

  /** The text of every chunk of one kind, joined. */
  text(kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"): string {
    return this.updates(kind)
      .map((update) => (update.content.type === "text" ? update.content.text : ""))
      .join("");
  }

  clear(): void {
    this.notifications.length = 0;
    this.permissionRequests.length = 0;
  }
}

type Params<Method extends keyof AgentRequestParamsByMethod> = AgentRequestParamsByMethod[Method];

/** The agent's methods as an editor calls them, through the client app's peer context. */
function agentMethods(agent: ClientContext) {
  return {
    initialize: (params: Params<"initialize">) => agent.request(methods.agent.initialize, params),
    authenticate: (params: Params<"authenticate">) => agent.request(methods.agent.authenticate, params),
    newSession: (params: Params<"session/new">) => agent.request(methods.agent.session.new, params),
    loadSession: (params: Params<"session/load">) => agent.request(methods.agent.session.load, params),
    prompt: (params: Params<"session/prompt">) => agent.request(methods.agent.session.prompt, params),
    setSessionMode: (params: Params<"session/set_mode">) =>
      agent.request(methods.agent.session.setMode, params),
    setConfigOption: (params: Params<"session/set_config_option">) =>
      agent.request(methods.agent.session.setConfigOption, params),
    /** The legacy model selector, which the stable SDK no longer types. */
    setModel: (params: { sessionId: string; modelId: string }) =>
      agent.request<Record<string, never>>("session/set_model", params),
    closeSession: (params: Params<"session/close">) => agent.request(methods.agent.session.close, params),
    cancel: (params: CancelNotification) => agent.notify(methods.agent.session.cancel, params),
  };
}

export type Agent = {
  connection: ReturnType<typeof agentMethods>;
  client: RecordingClient;
  child: ChildProcess;
  stderr: () => string;
  /** Closes the agent's stdin (the editor goes away) and resolves with its exit code. */
  end(): Promise<number | null>;
};

/**
 * Starts `cairn acp` in `cwd` (with the scripted server's key and URL, or `env`) and connects to it;
 * `program` starts another ACP agent instead (an adapter in front of cairn), with node.
 */
export function startAgent(
  cwd: string,
  options: {
    server?: ScriptedServer;
    env?: NodeJS.ProcessEnv;
    args?: string[];
    program?: string;
    /** Node's own options, before the program (`--import` of a module hook). */
    nodeArgs?: string[];
  },
): Agent {
  const env = options.env ?? serverEnv(options.server!);
  const args = options.args ?? ["--model", MODEL];
  const argv = [
    ...(options.nodeArgs ?? []),
    ...(options.program ? [options.program, ...(options.args ?? [])] : [CLI, "acp", ...args]),
  ];
  const child = spawn(process.execPath, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const client = new RecordingClient();
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const connection = acpClient({ name: "test-editor" })
    .onRequest(methods.client.session.requestPermission, ({ params }) => client.requestPermission(params))
    .onNotification(methods.client.session.update, ({ params }) => client.sessionUpdate(params))
    .onRequest(methods.client.elicitation.create, ({ params }) => client.elicit(params))
    .connect(stream);
  return {
    connection: agentMethods(connection.agent),
    client,
    child,
    stderr: () => stderr,
    end: () => {
      child.stdin!.end();
      return exited;
    },
  };
}

/** `initialize` as an editor sends it (no fs or terminal capabilities offered). */
export function initialize(agent: Agent) {
  return agent.connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
}

/** Resolves once `condition` holds (checked whenever the event loop turns; never a fixed delay). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The text a prompt request carries. */
export function textPrompt(sessionId: string, text: string) {
  return { sessionId, prompt: [{ type: "text" as const, text }] };
}

/**
 * Sends one text prompt after forgetting the updates so far; resolves once it ended normally, with
 * `answer` (when given) in the agent's message chunks.
 */
export async function promptEndsWith(agent: Agent, sessionId: string, text: string, answer?: string) {
  agent.client.clear();
  const response = await agent.connection.prompt(textPrompt(sessionId, text));
  expect(response.stopReason).toBe("end_turn");
  if (answer !== undefined) expect(agent.client.text("agent_message_chunk")).toContain(answer);
  return response;
}
