import { type AgentContext, methods, type PermissionOption } from "@agentclientprotocol/sdk";
import type { PermissionAnswer, PermissionRequest } from "../session/events.js";
import { toolCallFields } from "./tool-calls.js";
import { askPlanApproval, askQuestions, askQuestionsForm, asksUser } from "./user-questions.js";

const ALLOW_ONCE = "allow_once";
const ALLOW_ALWAYS = "allow_always";
const REJECT = "reject_once";

/**
 * A session's permission request as a `session/request_permission` to the client. Allow once runs
 * the call; allow always also adds the gate's suggested allow rules for the rest of the session
 * (offered only when there is a rule that covers such calls, never a blanket allow of the tool);
 * reject denies it and the model reads why. A cancelled turn (the client answers `cancelled`, or the
 * request's signal fires first) denies it and stops the turn (`cancelled: true`).
 */
export async function askClient(
  client: AgentContext,
  session: { id: string; forms?: boolean },
  request: PermissionRequest,
  signal: AbortSignal,
): Promise<{ result: PermissionAnswer; cancelled: boolean }> {
  // A question to the user: its options are the answers.
  const asks = asksUser(request.toolName);
  if (asks === "answer")
    return session.forms
      ? askQuestionsForm(client, session, request, signal)
      : askQuestions(client, session, request, signal);
  if (asks === "exit-plan") return askPlanApproval(client, session, request, signal);
  const { input, toolUseId, suggestions } = request;
  const always = suggestions.filter((update) => update.type === "addRules");
  const options: PermissionOption[] = [
    { optionId: ALLOW_ONCE, kind: "allow_once", name: "Allow once" },
    ...(always.length > 0
      ? [{ optionId: ALLOW_ALWAYS, kind: "allow_always" as const, name: `Always allow ${rulesText(always)}` }]
      : []),
    { optionId: REJECT, kind: "reject_once", name: "Reject" },
  ];
  // Cancelling the turn withdraws the request ($/cancel_request) and stops waiting for the answer.
  const response = await client
    .request(
      methods.client.session.requestPermission,
      {
        sessionId: session.id,
        toolCall: {
          toolCallId: toolUseId,
          ...toolCallFields(request.display),
          status: "pending",
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
    return {
      result: { behavior: "deny", message: "The user cancelled the turn.", interrupt: true },
      cancelled: true,
    };
  }
  return { result: decision(response.outcome.optionId, always), cancelled: false };
}

function decision(optionId: string, always: PermissionRequest["suggestions"]): PermissionAnswer {
  if (optionId === ALLOW_ONCE) return { behavior: "allow" };
  if (optionId === ALLOW_ALWAYS) return { behavior: "allow", updatedPermissions: always };
  return { behavior: "deny", message: "The user rejected this tool call." };
}

function rulesText(updates: PermissionRequest["suggestions"]): string {
  return updates
    .flatMap((update) => update.rules)
    .map((rule) => (rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName))
    .join(", ");
}
