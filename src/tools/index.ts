import { askUserQuestionTool } from "./ask-user-question.js";
import { bashTool } from "./bash.js";
import { bashOutputTool } from "./bash-output.js";
import { editTool } from "./edit.js";
import { exitPlanModeTool } from "./exit-plan-mode.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { notebookEditTool } from "./notebook-edit.js";
import { readTool } from "./read.js";
import { taskStopTool } from "./task-stop.js";
import { todoWriteTool } from "./todo-write.js";
import type { Tool } from "./types.js";
import { writeTool } from "./write.js";

export { type AskedQuestion, type AskUserQuestionInput, askUserQuestionTool } from "./ask-user-question.js";
export { BackgroundShells } from "./background-shells.js";
export { bashTool } from "./bash.js";
export { bashOutputTool } from "./bash-output.js";
export { childEnvironment } from "./child-env.js";
export {
  DEFAULT_OUTPUT_LIMIT,
  defineTool,
  describeZodError,
  type ToolEffectsSpec,
  truncateMiddle,
} from "./define.js";
export { editTool } from "./edit.js";
export { exitPlanModeTool } from "./exit-plan-mode.js";
export { globTool } from "./glob.js";
export { grepTool } from "./grep.js";
export { lsTool } from "./ls.js";
export { notebookEditTool } from "./notebook-edit.js";
export { resolveToolPath } from "./paths.js";
export { readTool } from "./read.js";
export { taskStopTool } from "./task-stop.js";
export { type Todo, todoWriteTool } from "./todo-write.js";
export type {
  Tool,
  ToolContext,
  ToolDeclaration,
  ToolEffects,
  ToolKind,
  ToolOutcome,
  ToolOutput,
  ToolPathAccess,
  ToolPayload,
  ToolValidation,
} from "./types.js";
export { writeTool } from "./write.js";

/** The built-in tools, in the order they are offered to the model. */
export function builtinTools(): Tool[] {
  return [
    readTool,
    writeTool,
    editTool,
    bashTool,
    globTool,
    grepTool,
    lsTool,
    todoWriteTool,
    bashOutputTool,
    taskStopTool,
    notebookEditTool,
    askUserQuestionTool,
    exitPlanModeTool,
  ];
}
