import {
  type AgentContext,
  type ContentBlock,
  methods,
  type PromptResponse,
  RequestError,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { MessageQueue } from "../sdk/message-queue.js";
import type { PermissionMode, SDKMessage, SDKResultMessage, SDKUserMessage } from "../sdk/messages.js";
import type { McpServerConfig } from "../sdk/options.js";
import { type Query, query } from "../sdk/query.js";
import { permissionBridge } from "./permission.js";
import { promptBlocks, userMessage } from "./prompt-input.js";
import { UpdateProjection } from "./updates.js";

export type SessionSetup = {
  sessionId: string;
  cwd: string;
  mcpServers: Record<string, McpServerConfig>;
  /** More directories the session may work in (ACP `additionalDirectories`), like the workspace. */
  additionalDirectories: string[];
  /** Continue this stored session (`session/load`): same id, its history goes to the model. */
  resume: boolean;
  mode: PermissionMode;
  model?: string;
  maxTurns?: number;
};

/**
 * One ACP session: one streaming-input `query()` for its whole life, one turn per `session/prompt`.
 * The query owns everything else (transcript, permissions, MCP servers, hooks); this class turns
 * its messages into `session/update`s and its result into the stop reason.
 */
export class AcpSession {
  readonly updates: UpdateProjection;
  /** The session's prompts, as the streaming input of its query: one turn each. */
  private readonly input = new MessageQueue<SDKUserMessage>();
  private readonly query: Query;
  private running = false;
  private cancelled = false;
  /** The running prompt, settled when its turn is over. */
  private current: Promise<unknown> | undefined;
  /** The query failed before a turn could start (nothing more can run in this session). */
  private broken: Error | undefined;

  constructor(
    private readonly client: AgentContext,
    private readonly setup: SessionSetup,
  ) {
    this.updates = new UpdateProjection(setup.cwd);
    this.query = query({
      prompt: this.input,
      options: {
        cwd: setup.cwd,
        ...(setup.resume ? { resume: setup.sessionId } : { sessionId: setup.sessionId }),
        includePartialMessages: true,
        permissionMode: setup.mode,
        canUseTool: permissionBridge(client, {
          id: setup.sessionId,
          cwd: setup.cwd,
          onCancelled: () => {
            this.cancelled = true;
          },
        }),
        mcpServers: setup.mcpServers,
        additionalDirectories: setup.additionalDirectories,
        ...(setup.model !== undefined ? { model: setup.model } : {}),
        ...(setup.maxTurns !== undefined ? { maxTurns: setup.maxTurns } : {}),
      },
    });
  }

  get id(): string {
    return this.setup.sessionId;
  }

  async prompt(blocks: ContentBlock[]): Promise<PromptResponse> {
    // One turn at a time; a prompt that comes while one runs waits for it. Editors send
    // session/cancel and the next prompt together when the user types mid-turn, and the cancelled
    // turn takes a moment to wind down (a tool's process group to end): the new prompt was refused
    // then. (The notification may even be handled after the request: both are dispatched async.)
    while (this.running) await this.current?.catch(() => {});
    if (this.broken) throw RequestError.internalError(undefined, this.broken.message);
    const turn = this.runPrompt(blocks);
    this.current = turn;
    return turn;
  }

  private async runPrompt(blocks: ContentBlock[]): Promise<PromptResponse> {
    const prompt = promptBlocks(blocks);
    this.running = true;
    this.cancelled = false;
    this.input.push(userMessage(prompt));
    try {
      while (true) {
        const step = await this.nextMessage();
        if (step.done) throw RequestError.internalError(undefined, "the session has ended");
        if (step.value.type === "result") return { stopReason: this.stopReason(step.value) };
        await this.deliver(step.value);
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * ACP's `available_commands_update`: the slash commands a prompt may start with (cairn's own and
   * the workspace's and user's custom commands and skills, docs/agents.md). Sent once the client
   * knows the session.
   */
  async announceCommands(): Promise<void> {
    const commands = await this.query.supportedCommands();
    await this.client.notify(methods.client.session.update, {
      sessionId: this.id,
      update: {
        sessionUpdate: "available_commands_update",
        availableCommands: commands.map((command) => ({
          name: command.name,
          description: command.description,
          ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
        })),
      },
    });
  }

  /** `session/cancel`: stops the running turn; its prompt then resolves with `cancelled`. */
  cancel(): void {
    if (!this.running) return;
    this.cancelled = true;
    void this.query.interrupt();
  }

  async setMode(mode: PermissionMode): Promise<void> {
    await this.query.setPermissionMode(mode);
  }

  /** Ends the query: the running turn is aborted, the transcript closed, MCP servers stopped. */
  async close(): Promise<void> {
    this.input.end();
    await this.query.return();
  }

  private async nextMessage(): Promise<IteratorResult<SDKMessage, void>> {
    try {
      return await this.query.next();
    } catch (error) {
      // The first turn could not start (a config file, the transcript): the query is over.
      this.broken = error instanceof Error ? error : new Error(String(error));
      throw RequestError.internalError(undefined, this.broken.message);
    }
  }

  private async deliver(message: SDKMessage): Promise<void> {
    if (message.type === "system" && message.subtype === "informational") {
      process.stderr.write(`cairn: ${message.level}: ${message.content}\n`);
      return;
    }
    for (const update of this.updates.project(message)) {
      await this.client.notify(methods.client.session.update, { sessionId: this.id, update });
    }
  }

  private stopReason(result: SDKResultMessage): StopReason {
    if (this.cancelled) return "cancelled";
    if (result.subtype === "success") {
      if (result.stop_reason === "refusal") return "refusal";
      if (result.stop_reason === "max_tokens") return "max_tokens";
      return "end_turn";
    }
    if (result.subtype === "error_max_turns") return "max_turn_requests";
    // A provider failure after its retries: the turn failed, the session goes on.
    throw RequestError.internalError({ errors: result.errors }, result.errors.join("; ") || result.subtype);
  }
}
