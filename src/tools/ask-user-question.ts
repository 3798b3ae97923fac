import * as z from "zod";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";

const option = () =>
  z.object({
    label: z
      .string()
      .min(1)
      .describe("The text the user sees and picks: concise (1-5 words), naming the choice."),
    description: z.string().describe("What this option means or what happens if it is chosen."),
    preview: z.string().optional().describe("Optional content shown while the option is focused."),
  });

const question = () =>
  z
    .object({
      question: z
        .string()
        .min(1)
        .describe("The complete question, clear and specific, ending with a question mark."),
      header: z.string().describe('A very short label shown as a tag (max 12 chars), e.g. "Library".'),
      options: z
        .array(option())
        .min(2)
        .max(4)
        .describe("2-4 distinct choices; no 'Other' option (the user can always decline)."),
      multiSelect: z
        .boolean()
        .describe("The user may pick several options (choices not mutually exclusive)."),
    })
    .refine((one) => new Set(one.options.map((choice) => choice.label)).size === one.options.length, {
      message: "option labels must be unique within a question",
    });

const input = () =>
  z.object({
    questions: z
      .array(question())
      .min(1)
      .max(4)
      .refine((list) => new Set(list.map((one) => one.question)).size === list.length, {
        message: "question texts must be unique",
      })
      .describe("Questions to ask the user (1-4 questions)."),
    answers: z
      .record(z.string(), z.string())
      .optional()
      .describe("The user's answers, by question text (filled in by whoever asks the user)."),
    annotations: z
      .record(z.string(), z.object({ preview: z.string().optional(), notes: z.string().optional() }))
      .optional()
      .describe("The user's notes per question, by question text (filled in with the answers)."),
    metadata: z
      .object({ source: z.string().optional() })
      .optional()
      .describe("Optional tracking data; not shown to the user."),
  });

export type AskUserQuestionInput = z.infer<ReturnType<typeof input>>;
export type AskedQuestion = AskUserQuestionInput["questions"][number];

/**
 * The agent asks the user one to four multiple-choice questions. Who answers is the door's business
 * (the SDK's `canUseTool`, an ACP client, the interactive mode's picker): the call is always a
 * permission question (`asksUser: "answer"`), and the answer comes back as the call's input
 * (`answers`: question text → the chosen label, several joined with ", "), as in the agent-SDK
 * convention. A session nobody answers (print mode) does not offer the tool.
 */
export const askUserQuestionTool = defineTool({
  name: "AskUserQuestion",
  // It only asks: nothing outside the conversation changes.
  effects: { kind: "other", readOnly: true, network: false, asksUser: "answer" },
  payload: "askQuestion",
  display: (args) => ({
    title: args.questions.length === 1 ? args.questions[0]!.question : `${args.questions.length} questions`,
    kind: "other",
  }),
  description:
    "Asks the user one to four multiple-choice questions and waits for the answers. Use it when a decision is the user's to make " +
    "(a library, an approach, which features) or when the request is ambiguous. Each question has a short header, 2-4 options " +
    "with a label and a description, and multiSelect when several options may be picked; the user may also decline to answer.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.AskUserQuestion,
  async run(args) {
    const answers = args.answers ?? {};
    const answered = args.questions.filter((one) => answers[one.question] !== undefined);
    const data = {
      questions: args.questions,
      answers,
      ...(args.annotations ? { annotations: args.annotations } : {}),
    };
    if (answered.length === 0) {
      return { content: "The user did not answer your questions. Continue without the answers.", data };
    }
    const pairs = answered.map((one) => {
      const notes = args.annotations?.[one.question]?.notes;
      return `"${one.question}"="${answers[one.question]}"${notes ? ` (user notes: ${notes})` : ""}`;
    });
    return {
      // The reference CLI's wording, which models are used to.
      content: `User has answered your questions: ${pairs.join(", ")}. You can now continue with the user's answers in mind.`,
      data,
    };
  },
});
