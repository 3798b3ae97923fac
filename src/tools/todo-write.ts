import * as z from "zod";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";

const todo = () =>
  z.object({
    content: z.string().min(1).describe('What to do, in the imperative (e.g. "Run the tests").'),
    status: z.enum(["pending", "in_progress", "completed"]),
    activeForm: z
      .string()
      .min(1)
      .describe('The same task in the present continuous (e.g. "Running the tests").'),
    id: z.string().optional(),
  });

const input = () =>
  z.object({
    todos: z.array(todo()).describe("The complete, updated todo list (replaces the previous one)."),
  });

export type Todo = z.infer<ReturnType<typeof todo>>;

export const todoWriteTool = defineTool({
  name: "TodoWrite",
  // The list lives in the conversation: nothing outside it changes.
  effects: { kind: "other", readOnly: true, network: false },
  payload: "updateTodos",
  display: () => ({ title: "Update the todo list", kind: "think" }),
  description:
    "Creates or updates the task list for the current work; each call sends the whole list. " +
    "Use it for work with several steps: mark a task in_progress before starting it (one at a time) and completed as soon as it is done.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.TodoWrite,
  async run(args) {
    // The list lives in the conversation: the caller records `data.todos`; nothing is kept here.
    return {
      content:
        "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable.",
      data: { todos: args.todos },
    };
  },
});
