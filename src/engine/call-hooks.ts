import type { ToolOutcome } from "../tools/types.js";
import {
  emptyVerdict,
  type HookDispatcher,
  type HookEventFields,
  type HookRunRecord,
  type HookVerdict,
  suggestionUpdates,
} from "./hooks.js";
import type { AskInfo, PermissionDecision, PreparedCall } from "./tool-runner.js";

/**
 * The hooks of one tool call: runs each event's hooks at its point of the call order (tool-runner.ts),
 * keeps what they ran and said (records, added context, a `continue: false`), and turns it into what
 * the call needs. Without a dispatcher every step is a no-op.
 */
export class CallHooks {
  readonly records: HookRunRecord[] = [];
  stop: { reason: string; hook: string } | undefined;
  /** Text the hooks add for the model, appended to the call's result. */
  private readonly context: string[] = [];

  constructor(
    private readonly hooks: HookDispatcher | undefined,
    private readonly call: PreparedCall,
    private readonly signal: AbortSignal,
  ) {}

  preToolUse(input: Record<string, unknown>): Promise<HookVerdict> {
    return this.run({ hook_event_name: "PreToolUse", ...this.toolFields(input) });
  }

  /** The denial message, after the PermissionDenied hooks saw it. */
  async denied(message: string, input: Record<string, unknown>): Promise<string> {
    const verdict = await this.run({
      hook_event_name: "PermissionDenied",
      ...this.toolFields(input),
      reason: message,
    });
    return verdict.retry ? `${message} A PermissionDenied hook allows retrying this call.` : message;
  }

  /** The gate would ask: PermissionRequest hooks may answer; otherwise Notification hooks hear of it. */
  async beforeAsk(input: Record<string, unknown>, info: AskInfo): Promise<PermissionDecision | undefined> {
    const verdict = await this.run({
      hook_event_name: "PermissionRequest",
      tool_name: this.toolName,
      tool_input: input,
      tool_use_id: this.call.block.id,
      permission_suggestions: suggestionUpdates(info.suggestions),
    });
    const answer = verdict.permissionRequest;
    if (answer?.behavior === "allow") {
      return { behavior: "allow", ...(answer.updatedInput ? { updatedInput: answer.updatedInput } : {}) };
    }
    if (answer?.behavior === "deny") {
      return {
        behavior: "deny",
        message: `The hook ${answer.hook} refused the permission request. ${answer.message}`.trim(),
        ...(answer.interrupt ? { interrupt: true } : {}),
      };
    }
    await this.run({
      hook_event_name: "Notification",
      title: "Permission needed",
      message: `cairn needs your permission to use ${this.call.block.name}: ${info.decisionReason}`,
      notification_type: "permission_prompt",
    });
    return undefined;
  }

  async postToolUse(input: Record<string, unknown>, outcome: ToolOutcome): Promise<void> {
    const base = { ...this.toolFields(input), duration_ms: outcome.durationMs };
    if (outcome.isError) {
      await this.run({
        hook_event_name: "PostToolUseFailure",
        ...base,
        error: outcome.content,
        is_interrupt: this.signal.aborted,
      });
      return;
    }
    const verdict = await this.run({
      hook_event_name: "PostToolUse",
      ...base,
      tool_response: outcome.data ?? outcome.content,
    });
    if (verdict.block)
      this.context.push(`The hook ${verdict.block.hook} flagged this result: ${verdict.block.reason}`);
  }

  /** The outcome with the hooks' added context after the tool's own output (what the model reads). */
  withContext(outcome: ToolOutcome): ToolOutcome {
    if (this.context.length === 0) return outcome;
    return { ...outcome, content: [outcome.content, ...this.context].join("\n\n") };
  }

  /** The tool's own name: a call by a legacy name (`Task`) is shown as `Agent`, so matchers name one. */
  private get toolName(): string {
    return this.call.tool?.name ?? this.call.block.name;
  }

  private toolFields(input: Record<string, unknown>) {
    return { tool_name: this.toolName, tool_input: input, tool_use_id: this.call.block.id };
  }

  private async run(fields: HookEventFields): Promise<HookVerdict> {
    if (!this.hooks?.has(fields.hook_event_name)) return emptyVerdict();
    const verdict = await this.hooks.run(fields, {
      signal: this.signal,
      ...(this.call.tool ? { tool: this.call.tool } : {}),
    });
    this.records.push(...verdict.records);
    this.context.push(...verdict.additionalContext);
    this.stop ??= verdict.stop;
    return verdict;
  }
}
