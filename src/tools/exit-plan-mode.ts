import * as z from "zod";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";

const input = () =>
  z.object({
    plan: z
      .string()
      .min(1)
      .describe("The plan to present to the user for approval: concise, concrete steps, in markdown."),
  });

/**
 * Ends plan mode: the model hands its plan over and the user is asked to approve it
 * (`asksUser: "exit-plan"`). Approving switches the session out of plan mode (to what the answer
 * chose, else `default`) and the model starts on the plan; rejecting keeps planning, and the model
 * reads the user's note. Where nobody answers (print mode with `--permission-mode plan`), the plan
 * is the run's result and the run ends. Offered only in plan mode.
 */
export const exitPlanModeTool = defineTool({
  name: "ExitPlanMode",
  effects: { kind: "other", readOnly: true, network: false, asksUser: "exit-plan" },
  offeredInModes: ["plan"],
  payload: "createPlan",
  display: () => ({ title: "Ready to code?", kind: "switch_mode" }),
  description:
    "Presents your plan to the user and asks to leave plan mode. Use it in plan mode once the plan is complete: " +
    "the plan is in markdown, concise and concrete. If the user approves, start working on it; " +
    "if not, keep planning with what the user said. Use it only for tasks that need code changes, not for research.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.ExitPlanMode,
  async run(args, ctx) {
    const data = { plan: args.plan, isAgent: false };
    if (ctx.unattended) {
      return {
        content: "The plan is handed over as the result; nobody can approve it in this session.",
        data,
        terminal: true,
        result: args.plan,
      };
    }
    return {
      // The reference CLI's wording, which models are used to.
      content: `User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n## Approved Plan:\n${args.plan}`,
      data,
    };
  },
});
