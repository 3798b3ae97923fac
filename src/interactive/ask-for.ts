import type { PermissionRequest } from "../session/events.js";
import type { Session } from "../session/session.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { type Ask, PlanApproval, QuestionPicker } from "./question-picker.js";

/**
 * How a permission request is asked on the terminal, from what its tool declares (`asksUser`): a
 * question to the user (AskUserQuestion) gets the picker, a request to leave plan mode
 * (ExitPlanMode) the plan approval, any other call the permission prompt.
 */
export function askFor(request: PermissionRequest, session: Session, userFile?: string): Ask {
  const asks = asksUserOf(request, session);
  if (asks === "answer") return new QuestionPicker(request);
  if (asks === "exit-plan") return new PlanApproval(request);
  return new PermissionPrompt(request, userFile);
}

/** What the request's tool asks the user, when it is a question to the user. */
export function asksUserOf(request: PermissionRequest, session: Session): "answer" | "exit-plan" | undefined {
  return session.run?.declarations.find((one) => one.name === request.toolName)?.effects?.asksUser;
}
