import type { PermissionAnswer, PermissionRequest } from "../session/events.js";
import type { AskedQuestion } from "../tools/index.js";
import type { Key } from "./keys.js";
import type { Styles } from "./style.js";
import { graphemesOf, printable, truncate } from "./text-width.js";

/** A row for the scrollback, with how it is styled. */
export type DetailRow = { text: string; style: "title" | "reason" | "added" | "removed" | "plain" };

/**
 * A question on screen: what it is about (for the scrollback), its rows in the live region, and
 * what each key does. The permission prompt is one; the question picker and the plan approval are
 * the others (tools that ask the user, `asksUser`).
 */
export interface Ask {
  readonly request: PermissionRequest;
  /** Esc is one of its answers (else it interrupts the turn). */
  readonly takesEscape?: boolean;
  details(): DetailRow[];
  key(key: Key): PermissionAnswer | undefined;
  rows(styles: Styles, width: number): string[];
  /** How the answer is reported in the scrollback (default: allowed / denied). */
  said?(answer: PermissionAnswer, styles: Styles): string;
}

const DECLINED = "The user declined to answer the questions.";

/**
 * AskUserQuestion's questions, one after the other: ↑/↓ move, a number key picks that option (in a
 * multi-select question it toggles it, as Space does), Enter takes the highlighted option (or
 * confirms the ticked ones), Esc declines them all. The answers go back as the call's input
 * (`answers`: question → label, several joined with ", "), as the agent-SDK convention has it.
 */
export class QuestionPicker implements Ask {
  readonly takesEscape = true;
  private readonly questions: AskedQuestion[];
  private readonly answers: Record<string, string> = {};
  private index = 0;
  /** The highlighted option; none until the user moves (Enter alone then takes nothing). */
  private cursor: number | undefined;
  private readonly ticked = new Set<number>();

  constructor(readonly request: PermissionRequest) {
    this.questions = (request.input.questions ?? []) as AskedQuestion[];
  }

  details(): DetailRow[] {
    return [
      { text: "Questions for you", style: "title" },
      ...this.questions.map((one) => ({
        text: `${printable(one.header)}: ${printable(one.question)}`,
        style: "plain" as const,
      })),
    ];
  }

  key(key: Key): PermissionAnswer | undefined {
    // Keys typed quickly come as one text: each character is a key of its own.
    if (key.type === "text" && key.text.length > 1) {
      for (const text of graphemesOf(key.text)) {
        const answer = this.key({ type: "text", text });
        if (answer) return answer;
      }
      return undefined;
    }
    const question = this.questions[this.index];
    if (!question) return this.done();
    const count = question.options.length;
    if (key.type === "escape") return { behavior: "deny", message: DECLINED };
    if (key.type === "up") this.cursor = this.cursor === undefined ? 0 : Math.max(0, this.cursor - 1);
    else if (key.type === "down")
      this.cursor = this.cursor === undefined ? 0 : Math.min(count - 1, this.cursor + 1);
    else if (key.type === "text") {
      const number = Number(key.text);
      if (Number.isInteger(number) && number >= 1 && number <= count) {
        if (!question.multiSelect) return this.take([number - 1]);
        this.toggle(number - 1);
        this.cursor = number - 1;
      } else if (key.text === " " && question.multiSelect && this.cursor !== undefined)
        this.toggle(this.cursor);
    } else if (key.type === "enter") {
      if (question.multiSelect && this.ticked.size > 0)
        return this.take([...this.ticked].sort((a, b) => a - b));
      if (this.cursor !== undefined) return this.take([this.cursor]);
    }
    return undefined;
  }

  rows(styles: Styles, width: number): string[] {
    const question = this.questions[this.index];
    if (!question) return [];
    const position = this.questions.length > 1 ? ` (${this.index + 1}/${this.questions.length})` : "";
    const hint = question.multiSelect
      ? "↑↓ move · space or 1-9 tick · enter confirm · esc decline"
      : "↑↓ move · 1-9 or enter pick · esc decline";
    return [
      styles.bold(
        truncate(`[${printable(question.header)}] ${printable(question.question)}${position}`, width),
      ),
      ...question.options.map((option, i) => {
        const box = question.multiSelect ? (this.ticked.has(i) ? "[x] " : "[ ] ") : "";
        const line = `${i === this.cursor ? "›" : " "} ${i + 1}. ${box}${printable(option.label)}`;
        const text = truncate(
          option.description ? `${line} — ${printable(option.description)}` : line,
          width,
        );
        return i === this.cursor ? styles.inverse(text) : text;
      }),
      styles.dim(truncate(hint, width)),
    ];
  }

  said(answer: PermissionAnswer, styles: Styles): string {
    if (answer.behavior === "deny") return styles.red("declined");
    return styles.green(
      Object.entries(this.answers)
        .map(([question, label]) => `${printable(question)} → ${printable(label)}`)
        .join("; "),
    );
  }

  private toggle(option: number): void {
    if (this.ticked.has(option)) this.ticked.delete(option);
    else this.ticked.add(option);
  }

  /** The options chosen for this question: the next question, or the answer once all are done. */
  private take(options: number[]): PermissionAnswer | undefined {
    const question = this.questions[this.index]!;
    this.answers[question.question] = options.map((i) => question.options[i]!.label).join(", ");
    this.index += 1;
    this.cursor = undefined;
    this.ticked.clear();
    return this.index >= this.questions.length ? this.done() : undefined;
  }

  private done(): PermissionAnswer {
    return { behavior: "allow", updatedInput: { ...this.request.input, answers: { ...this.answers } } };
  }
}

const PLAN_CHOICES = [
  { key: "1", label: "Yes, and auto-accept edits", mode: "acceptEdits" },
  { key: "2", label: "Yes, and manually approve edits", mode: "default" },
  { key: "3", label: "No, keep planning", mode: undefined },
] as const;

/**
 * ExitPlanMode: the plan goes to the scrollback, and the user picks how to go on: 1 leaves plan
 * mode for acceptEdits, 2 for default, 3 keeps planning and takes a note for the model (typed on
 * the next line; Enter sends it, empty or not). Esc keeps planning without a note.
 */
export class PlanApproval implements Ask {
  readonly takesEscape = true;
  private cursor: number | undefined;
  /** The note being typed after "keep planning" (undefined: still choosing). */
  private note: string[] | undefined;

  constructor(readonly request: PermissionRequest) {}

  details(): DetailRow[] {
    const plan = typeof this.request.input.plan === "string" ? this.request.input.plan : "";
    return [
      { text: "Ready to code? The plan:", style: "title" },
      ...plan.split("\n").map((line) => ({ text: printable(line), style: "plain" as const })),
    ];
  }

  key(key: Key): PermissionAnswer | undefined {
    if (this.note) return this.noteKey(key, this.note);
    // Keys typed quickly come as one text: the first picks, the rest may be the note.
    if (key.type === "text" && key.text.length > 1) {
      const [first = "", ...rest] = graphemesOf(key.text);
      const answer = this.key({ type: "text", text: first });
      return answer ?? (rest.length > 0 ? this.key({ type: "text", text: rest.join("") }) : undefined);
    }
    if (key.type === "escape") return keepPlanning("");
    let picked: number | undefined;
    if (key.type === "text") {
      const index = PLAN_CHOICES.findIndex((choice) => choice.key === key.text);
      if (index !== -1) picked = index;
    } else if (key.type === "up") this.cursor = this.cursor === undefined ? 0 : Math.max(0, this.cursor - 1);
    else if (key.type === "down")
      this.cursor = this.cursor === undefined ? 0 : Math.min(PLAN_CHOICES.length - 1, this.cursor + 1);
    else if (key.type === "enter") picked = this.cursor;
    if (picked === undefined) return undefined;
    const { mode } = PLAN_CHOICES[picked]!;
    if (mode === undefined) {
      this.note = [];
      return undefined;
    }
    return { behavior: "allow", updatedPermissions: [{ type: "setMode", mode, destination: "session" }] };
  }

  rows(styles: Styles, width: number): string[] {
    if (this.note)
      return [
        styles.bold(truncate("What should change in the plan? (enter sends, esc sends no note)", width)),
        truncate(`› ${this.note.join("")}`, width),
      ];
    return [
      styles.bold(truncate("Leave plan mode and start?", width)),
      ...PLAN_CHOICES.map((choice, i) => {
        const text = truncate(`${i === this.cursor ? "›" : " "} ${choice.key}. ${choice.label}`, width);
        return i === this.cursor ? styles.inverse(text) : text;
      }),
    ];
  }

  said(answer: PermissionAnswer, styles: Styles): string {
    if (answer.behavior === "deny") return styles.yellow("keep planning");
    const mode = (answer.updatedPermissions?.[0] as { mode?: string } | undefined)?.mode ?? "default";
    return styles.green(`plan approved, mode ${mode}`);
  }

  private noteKey(key: Key, note: string[]): PermissionAnswer | undefined {
    if (key.type === "text" || key.type === "paste") note.push(...graphemesOf(key.text.replace(/\n/g, " ")));
    else if (key.type === "backspace") note.pop();
    else if (key.type === "enter") return keepPlanning(note.join("").trim());
    else if (key.type === "escape") return keepPlanning("");
    return undefined;
  }
}

/** Rejecting the plan: the model keeps planning and reads what the user said. */
function keepPlanning(note: string): PermissionAnswer {
  return {
    behavior: "deny",
    message: note ? `The user wants to keep planning and said: ${note}` : "The user wants to keep planning.",
  };
}
