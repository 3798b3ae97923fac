import {
  emptyVerdict,
  type FiredHookEvent,
  type HookDispatcher,
  type HookEventFields,
  type HookInput,
  type HookRunOptions,
  type HookVerdict,
} from "../engine/hooks.js";
import { decide, type HookDecision, recordOf } from "./decision.js";
import type { HookHandler, RawHookResult } from "./types.js";

/** The base fields of every input; set by the door before each run (session id, transcript, mode). */
export type HookContext = {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  permissionMode?: string;
};

const PERMISSION_RANK = { allow: 1, ask: 2, deny: 3 } as const;

/**
 * Runs the hooks of one run, from every source, at the engine's hook points and wherever a door or
 * a feature calls `run` (SessionEnd; SubagentStart/Stop and PreCompact/PostCompact once those
 * features exist). The matching hooks of an event run in parallel; their decisions are combined in
 * registration order: deny beats ask beats allow, the first block and the first `continue: false`
 * count, every added context is kept, a later `updatedInput` replaces an earlier one.
 */
export class Hooks implements HookDispatcher {
  private context: HookContext;
  private runs = 0;

  constructor(
    readonly handlers: readonly HookHandler[],
    cwd: string,
  ) {
    this.context = { sessionId: "", transcriptPath: "", cwd };
  }

  /** The session the next inputs belong to. */
  setContext(context: Partial<HookContext>): void {
    this.context = { ...this.context, ...context };
  }

  has(event: FiredHookEvent): boolean {
    return this.handlers.some((handler) => handler.event === event);
  }

  async run(fields: HookEventFields, options: HookRunOptions): Promise<HookVerdict> {
    const { sessionId, transcriptPath, cwd, permissionMode } = this.context;
    const input = {
      session_id: sessionId,
      transcript_path: transcriptPath,
      cwd,
      ...(permissionMode !== undefined ? { permission_mode: permissionMode } : {}),
      ...fields,
    } as HookInput;
    const event = fields.hook_event_name;
    const toolUseId = "tool_use_id" in fields ? fields.tool_use_id : undefined;
    const matching = this.handlers.filter(
      (handler) => handler.event === event && handler.matches(input, options),
    );
    const decided = await Promise.all(
      matching.map(async (handler) => {
        const hookId = `hook_${this.runs++}`;
        const result = await invokeWithin(handler, input, toolUseId, options.signal);
        const decision = decide(event, result, handler.dialect, handler.failClosed);
        return {
          handler,
          decision,
          record: recordOf({ hookId, hookName: handler.name, event }, result, decision),
        };
      }),
    );
    const verdict = emptyVerdict();
    for (const { handler, decision, record } of decided) {
      verdict.records.push(record);
      combine(verdict, decision, handler.name);
    }
    return verdict;
  }
}

function combine(verdict: HookVerdict, decision: HookDecision, hook: string): void {
  if (decision.additionalContext) verdict.additionalContext.push(decision.additionalContext);
  const permission = decision.permission;
  if (
    permission &&
    (!verdict.permission ||
      PERMISSION_RANK[permission.decision] > PERMISSION_RANK[verdict.permission.decision])
  )
    verdict.permission = { ...permission, hook };
  if (decision.updatedInput) verdict.updatedInput = decision.updatedInput;
  if (decision.block !== undefined) verdict.block ??= { reason: decision.block, hook };
  if (decision.stop !== undefined) verdict.stop ??= { reason: decision.stop, hook };
  const answer = decision.permissionRequest;
  if (
    answer &&
    (!verdict.permissionRequest || answer.behavior === "deny") &&
    verdict.permissionRequest?.behavior !== "deny"
  )
    verdict.permissionRequest = { ...answer, hook };
  if (decision.retry) verdict.retry = true;
}

/**
 * Runs one handler with its timeout, never waiting past it or past the run's end: a callback that
 * ignores its signal is left behind (its result unused), a command's process group is stopped.
 */
async function invokeWithin(
  handler: HookHandler,
  input: HookInput,
  toolUseId: string | undefined,
  runSignal: AbortSignal,
): Promise<RawHookResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${handler.timeoutMs / 1000} s`));
  }, handler.timeoutMs);
  const onRunAbort = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) onRunAbort();
  else runSignal.addEventListener("abort", onRunAbort, { once: true });
  const ended = new Promise<RawHookResult>((resolve) => {
    const stop = () => resolve({ kind: "cancelled", stdout: "", stderr: "" });
    if (controller.signal.aborted) stop();
    else controller.signal.addEventListener("abort", stop, { once: true });
  });
  try {
    const result = await Promise.race([handler.invoke(input, toolUseId, controller.signal), ended]);
    if (timedOut) {
      const { stdout, stderr } = result;
      return { kind: "failed", error: `timed out after ${handler.timeoutMs / 1000} s`, stdout, stderr };
    }
    return result;
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener("abort", onRunAbort);
  }
}
