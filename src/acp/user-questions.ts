import {
  type AgentContext,
  methods,
  type PermissionOption,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { PermissionAnswer, PermissionRequest } from "../session/events.js";
import type { AskedQuestion } from "../tools/index.js";
import { builtinTools } from "../tools/index.js";
import { toolCallFields } from "./tool-calls.js";

/**
 * The calls that ask the user something (tools declaring `asksUser`) as `session/request_permission`
 * requests whose options are the answers: AskUserQuestion's choices, one request per question, and
 * ExitPlanMode's "leave plan mode for which mode", with the options the claude-agent-acp adapter
 * offers. Declining or rejecting is a denial the model reads; a cancelled turn stops it.
 */
export type Asked = { result: PermissionAnswer; cancelled: boolean };

const ASKS = new Map(builtinTools().map((tool) => [tool.name, tool.effects?.asksUser]));

/** What the call asks, when it is a question to the user. */
export function asksUser(toolName: string): "answer" | "exit-plan" | undefined {
  return ASKS.get(toolName);
}

const DECLINE = "decline";
const CANCELLED: Asked = {
  result: { behavior: "deny", message: "The user cancelled the turn.", interrupt: true },
  cancelled: true,
};

type Ask = (options: PermissionOption[], toolCall: Partial<ToolCallUpdate>) => Promise<string | undefined>;

function asker(
  client: AgentContext,
  sessionId: string,
  request: PermissionRequest,
  signal: AbortSignal,
): Ask {
  return async (options, toolCall) => {
    const response = await client
      .request(
        methods.client.session.requestPermission,
        {
          sessionId,
          toolCall: {
            toolCallId: request.toolUseId,
            ...toolCallFields(request.display),
            status: "pending",
            rawInput: request.input,
            ...toolCall,
          },
          options,
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      )
      .catch((error: unknown) => {
        if (signal.aborted) return undefined;
        throw error;
      });
    return response?.outcome.outcome === "selected" ? response.outcome.optionId : undefined;
  };
}

/** AskUserQuestion: one request per question, its options the choices; the answers go back as input. */
export async function askQuestions(
  client: AgentContext,
  session: { id: string },
  request: PermissionRequest,
  signal: AbortSignal,
): Promise<Asked> {
  const ask = asker(client, session.id, request, signal);
  const questions = (request.input.questions ?? []) as AskedQuestion[];
  const answers: Record<string, string> = {};
  for (const question of questions) {
    const picked = await ask(
      [
        ...question.options.map((option, index) => ({
          optionId: String(index),
          kind: "allow_once" as const,
          name: option.label,
        })),
        { optionId: DECLINE, kind: "reject_once", name: "Decline to answer" },
      ],
      {
        title: question.question,
        content: [{ type: "content", content: { type: "text", text: questionText(question) } }],
      },
    );
    if (picked === undefined) return CANCELLED;
    if (picked === DECLINE)
      return {
        result: { behavior: "deny", message: "The user declined to answer the questions." },
        cancelled: false,
      };
    const option = question.options[Number(picked)];
    if (option) answers[question.question] = option.label;
  }
  return { result: { behavior: "allow", updatedInput: { ...request.input, answers } }, cancelled: false };
}

/**
 * AskUserQuestion as one form (`elicitation/create`, mode `form`), for a client that offers form
 * elicitation: a field per question, `q1`, `q2`, …, a single choice as a string with titled options
 * (`oneOf`), a multi-select one as an array (`anyOf` items, at least one). `accept` answers,
 * `decline` is the user declining, `cancel` stops the turn.
 */
export async function askQuestionsForm(
  client: AgentContext,
  session: { id: string },
  request: PermissionRequest,
  signal: AbortSignal,
): Promise<Asked> {
  const questions = (request.input.questions ?? []) as AskedQuestion[];
  const key = (index: number) => `q${index + 1}`;
  const properties = Object.fromEntries(
    questions.map((question, index) => {
      const choices = question.options.map((option) => ({
        const: option.label,
        title: option.label,
        description: option.description,
      }));
      const field = question.multiSelect
        ? {
            type: "array" as const,
            title: question.header,
            description: question.question,
            minItems: 1,
            items: { anyOf: choices },
          }
        : { type: "string" as const, title: question.header, description: question.question, oneOf: choices };
      return [key(index), field];
    }),
  );
  const response = await client
    .request(
      methods.client.elicitation.create,
      {
        sessionId: session.id,
        toolCallId: request.toolUseId,
        mode: "form",
        message: questions.length === 1 ? questions[0]!.question : `${questions.length} questions`,
        requestedSchema: { type: "object", properties, required: questions.map((_, index) => key(index)) },
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    )
    .catch((error: unknown) => {
      if (signal.aborted) return undefined;
      throw error;
    });
  if (!response || response.action === "cancel") return CANCELLED;
  if (response.action !== "accept")
    return {
      result: { behavior: "deny", message: "The user declined to answer the questions." },
      cancelled: false,
    };
  const content = ("content" in response ? response.content : undefined) ?? {};
  const answers: Record<string, string> = {};
  questions.forEach((question, index) => {
    const value = (content as Record<string, unknown>)[key(index)];
    if (typeof value === "string" && value !== "") answers[question.question] = value;
    else if (Array.isArray(value) && value.length > 0) answers[question.question] = value.join(", ");
  });
  return { result: { behavior: "allow", updatedInput: { ...request.input, answers } }, cancelled: false };
}

/** A question with its choices' descriptions, for the client to show above the options. */
function questionText(question: AskedQuestion): string {
  const lines = [
    `${question.header}: ${question.question}`,
    ...question.options.map((option) => `- ${option.label}: ${option.description}`),
  ];
  if (question.multiSelect) lines.push("(One choice here: this client offers no form for several.)");
  return lines.join("\n");
}

/** ExitPlanMode: leave plan mode for acceptEdits or default, or keep planning. */
export async function askPlanApproval(
  client: AgentContext,
  session: { id: string },
  request: PermissionRequest,
  signal: AbortSignal,
): Promise<Asked> {
  const plan = typeof request.input.plan === "string" ? request.input.plan : "";
  const picked = await asker(
    client,
    session.id,
    request,
    signal,
  )(
    [
      { optionId: "acceptEdits", kind: "allow_always", name: "Yes, and auto-accept edits" },
      { optionId: "default", kind: "allow_once", name: "Yes, and manually approve edits" },
      { optionId: "plan", kind: "reject_once", name: "No, keep planning" },
    ],
    { content: plan ? [{ type: "content", content: { type: "text", text: plan } }] : [] },
  );
  if (picked === undefined) return CANCELLED;
  if (picked === "acceptEdits" || picked === "default")
    return {
      result: {
        behavior: "allow",
        updatedPermissions: [{ type: "setMode", mode: picked, destination: "session" }],
      },
      cancelled: false,
    };
  return { result: { behavior: "deny", message: "The user wants to keep planning." }, cancelled: false };
}
