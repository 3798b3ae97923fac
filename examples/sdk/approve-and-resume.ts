// Permissions and sessions: a host that approves file edits (for the rest of the query, through the
// suggested rules) and refuses every other request, then resumes the same session for a follow-up
// question. Prints a JSON summary at the end.
//
//   node approve-and-resume.js "Write a TODO.md with three items" "What did you write?"
import { type CanUseTool, query } from "cairn";

const [task = "Write a TODO.md with three items", followUp = "What did you write?"] = process.argv.slice(2);

const asked: string[] = [];
const canUseTool: CanUseTool = async (toolName, _input, { decisionReason, suggestions }) => {
  asked.push(toolName);
  if (toolName === "Write" || toolName === "Edit") {
    // "Always allow": the suggested rules apply for the rest of this query.
    return { behavior: "allow", updatedPermissions: suggestions ?? [] };
  }
  return { behavior: "deny", message: `Only file edits are approved here (${decisionReason}).` };
};

let sessionId = "";
const denied: string[] = [];
for await (const message of query({ prompt: task, options: { canUseTool } })) {
  if (message.type === "system" && message.subtype === "init") sessionId = message.session_id;
  if (message.type === "result") denied.push(...message.permission_denials.map((denial) => denial.tool_name));
}

// The transcript is in $CAIRN_HOME (default ~/.cairn): the follow-up sees the whole conversation.
let resumedId = "";
let answer = "";
for await (const message of query({ prompt: followUp, options: { resume: sessionId } })) {
  if (message.type === "system" && message.subtype === "init") resumedId = message.session_id;
  if (message.type === "result") answer = message.subtype === "success" ? message.result : message.subtype;
}

console.log(JSON.stringify({ sessionId, sameSession: resumedId === sessionId, asked, denied, answer }));
