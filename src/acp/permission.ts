import { type AgentContext, methods, type PermissionOption } from "@agentclientprotocol/sdk";
import type { CanUseTool, PermissionResult, PermissionUpdate } from "../sdk/options.js";
import { editDiff, toolKind, toolLocations, toolTitle } from "./tool-calls.js";

const ALLOW_ONCE = "allow_once";
const ALLOW_ALWAYS = "allow_always";
const REJECT = "reject_once";

/**
 * The session's `canUseTool`: a call the rules and the mode leave open ("ask") becomes a
 * `session/request_permission` to the client. Allow once runs it; allow always also adds the
 * gate's suggested allow rules for the rest of the session (offered only when there is a rule that
 * covers such calls, never a blanket allow of the tool); reject denies it and the model reads why. A
 * cancelled turn (the client answers `cancelled`, or the turn's signal fires first) denies it and
 * stops the turn.
 */
export function permissionBridge(
  client: AgentContext,
  session: { id: string; cwd: string; onCancelled(): void },
): CanUseTool {
  const { id: sessionId, cwd } = session;
  return async (toolName, input, { signal, toolUseID, suggestions }) => {
    const always = (suggestions ?? []).filter((update) => update.type === "addRules");
    const options: PermissionOption[] = [
      { optionId: ALLOW_ONCE, kind: "allow_once", name: "Allow once" },
      ...(always.length > 0
        ? [
            {
              optionId: ALLOW_ALWAYS,
              kind: "allow_always" as const,
              name: `Always allow ${rulesText(always)}`,
            },
          ]
        : []),
      { optionId: REJECT, kind: "reject_once", name: "Reject" },
    ];
    // Cancelling the turn withdraws the request ($/cancel_request) and stops waiting for the answer.
    const response = await client
      .request(
        methods.client.session.requestPermission,
        {
          sessionId,
          toolCall: {
            toolCallId: toolUseID,
            title: toolTitle(toolName, input),
            kind: toolKind(toolName),
            status: "pending",
            locations: toolLocations(toolName, input, cwd),
            content: editDiff(toolName, input, cwd, { readBefore: true }),
            rawInput: input,
          },
          options,
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      )
      .catch((error: unknown) => {
        if (signal.aborted) return undefined;
        throw error;
      });
    if (!response || response.outcome.outcome === "cancelled") {
      session.onCancelled();
      return { behavior: "deny", message: "The user cancelled the turn.", interrupt: true };
    }
    const result = decision(response.outcome.optionId, always);
    // Allowed, it runs now: an editor shows it running rather than waiting for approval.
    if (result.behavior === "allow")
      await client.notify(methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "tool_call_update", toolCallId: toolUseID, status: "in_progress" },
      });
    return result;
  };
}

function decision(optionId: string, always: PermissionUpdate[]): PermissionResult {
  if (optionId === ALLOW_ONCE) return { behavior: "allow" };
  if (optionId === ALLOW_ALWAYS) return { behavior: "allow", updatedPermissions: always };
  return { behavior: "deny", message: "The user rejected this tool call." };
}

function rulesText(updates: PermissionUpdate[]): string {
  return updates
    .flatMap((update) => ("rules" in update ? update.rules : []))
    .map((rule) => (rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName))
    .join(", ");
}
