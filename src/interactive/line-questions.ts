import type { PermissionAnswer, PermissionRequest } from "../session/events.js";
import type { AskedQuestion } from "../tools/index.js";
import { printable } from "./text-width.js";

/** What a line typed in answer does: the answer once complete, else the lines to show next. */
export type LineStep = { reply: PermissionAnswer } | { say: string[] };

/**
 * Line mode's form of the tools that ask the user (`asksUser`): AskUserQuestion's questions one by
 * one, answered with the option's number (several, for a multi-select question, as `1,3`) or `n`
 * to decline; ExitPlanMode's plan, answered `1` (leave plan mode, auto-accept edits), `2` (leave,
 * approve edits) or `3` (keep planning, then a line for the model: what should change).
 */
export class LineQuestion {
  private index = 0;
  private readonly answers: Record<string, string> = {};
  /** ExitPlanMode: "keep planning" was chosen; the next line is the note. */
  private noting = false;

  constructor(
    private readonly request: PermissionRequest,
    private readonly kind: "answer" | "exit-plan",
  ) {}

  private get questions(): AskedQuestion[] {
    return (this.request.input.questions ?? []) as AskedQuestion[];
  }

  /** What to show first. */
  lines(): string[] {
    if (this.kind === "exit-plan") {
      const plan = typeof this.request.input.plan === "string" ? this.request.input.plan : "";
      return [
        "Plan:",
        ...plan.split("\n").map(printable),
        "Leave plan mode? 1 = yes, auto-accept edits; 2 = yes, approve edits; 3 = no, keep planning",
      ];
    }
    return this.questionLines();
  }

  answer(line: string): LineStep {
    const text = line.trim();
    if (this.kind === "exit-plan") return this.planAnswer(text);
    const question = this.questions[this.index]!;
    if (text.toLowerCase() === "n") {
      return { reply: { behavior: "deny", message: "The user declined to answer the questions." } };
    }
    const picked = text
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    const valid =
      picked.length > 0 &&
      (question.multiSelect || picked.length === 1) &&
      picked.every((n) => Number.isInteger(n) && n >= 1 && n <= question.options.length);
    if (!valid) return { say: [this.hint(question)] };
    this.answers[question.question] = [...new Set(picked)]
      .sort((a, b) => a - b)
      .map((n) => question.options[n - 1]!.label)
      .join(", ");
    this.index += 1;
    if (this.index < this.questions.length) return { say: this.questionLines() };
    return { reply: { behavior: "allow", updatedInput: { ...this.request.input, answers: this.answers } } };
  }

  private planAnswer(text: string): LineStep {
    if (this.noting) {
      return {
        reply: {
          behavior: "deny",
          message: text
            ? `The user wants to keep planning and said: ${text}`
            : "The user wants to keep planning.",
        },
      };
    }
    if (text === "1" || text === "2") {
      const mode = text === "1" ? "acceptEdits" : "default";
      return {
        reply: { behavior: "allow", updatedPermissions: [{ type: "setMode", mode, destination: "session" }] },
      };
    }
    if (text === "3") {
      this.noting = true;
      return { say: ["What should change in the plan? (one line; empty for no note)"] };
    }
    return { say: ["Answer 1, 2 or 3."] };
  }

  private questionLines(): string[] {
    const question = this.questions[this.index]!;
    const position = this.questions.length > 1 ? ` (${this.index + 1}/${this.questions.length})` : "";
    return [
      `Question${position} [${printable(question.header)}]: ${printable(question.question)}`,
      ...question.options.map(
        (option, i) => `${i + 1}. ${printable(option.label)} — ${printable(option.description)}`,
      ),
      this.hint(question),
    ];
  }

  private hint(question: AskedQuestion): string {
    return question.multiSelect
      ? "Answer with the numbers of your choices (e.g. 1,3), or n to decline."
      : "Answer with the number of your choice, or n to decline.";
  }
}
