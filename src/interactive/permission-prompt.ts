import type { PermissionAnswer, PermissionRequest } from "../session/events.js";
import { diffLines } from "./diff-rows.js";
import type { Key } from "./keys.js";
import type { Ask, DetailRow } from "./question-picker.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

type Choice = { key: string; label: string; answer: PermissionAnswer };

/**
 * A tool call the rules and the mode leave open, asked: what it will do (its title, the command,
 * the diff of a Write or Edit) goes to the scrollback, the choices to the live region. `y` allows
 * once, `a` allows such calls for the rest of the session (the request's own suggested rules), `n`
 * denies; ↑/↓ pick a choice and Enter takes it. Enter alone takes nothing: no choice is picked until
 * the user moves to one.
 */
export class PermissionPrompt implements Ask {
  private picked: number | undefined;
  readonly choices: Choice[];

  constructor(readonly request: PermissionRequest) {
    this.choices = [
      { key: "y", label: "Yes, once", answer: { behavior: "allow" } },
      ...(request.suggestions.length > 0
        ? [
            {
              key: "a",
              label: "Yes, and allow such calls for this session",
              answer: { behavior: "allow" as const, updatedPermissions: request.suggestions },
            },
          ]
        : []),
      { key: "n", label: "No", answer: { behavior: "deny", message: "The user rejected this tool call." } },
    ];
  }

  /** What the call will do, for the scrollback (stays there after the answer). */
  details(): DetailRow[] {
    const { display, reason } = this.request;
    const rows: DetailRow[] = [{ text: printable(display.title), style: "title" }];
    if (display.diff)
      for (const line of diffLines(display.diff))
        rows.push({
          text: `${line.sign} ${printable(line.text)}`,
          style: line.sign === "+" ? "added" : "removed",
        });
    rows.push({ text: printable(reason), style: "reason" });
    return rows;
  }

  /** A key: the answer it gives, or undefined (the key only moved the choice, or did nothing). */
  key(key: Key): PermissionAnswer | undefined {
    if (key.type === "text") {
      const choice = this.choices.find((one) => one.key === key.text.toLowerCase());
      return choice?.answer;
    }
    if (key.type === "up") this.picked = this.picked === undefined ? 0 : Math.max(0, this.picked - 1);
    else if (key.type === "down")
      this.picked = this.picked === undefined ? 0 : Math.min(this.choices.length - 1, this.picked + 1);
    else if (key.type === "enter" && this.picked !== undefined) return this.choices[this.picked]!.answer;
    return undefined;
  }

  /** The question and its choices, for the live region. */
  rows(styles: Styles, width: number): string[] {
    const question = `Allow ${this.request.toolName}?`;
    return [
      styles.bold(truncate(question, width)),
      ...this.choices.map((choice, i) => {
        const text = truncate(`${i === this.picked ? "›" : " "} ${choice.key}  ${choice.label}`, width);
        return i === this.picked ? styles.inverse(text) : text;
      }),
    ];
  }
}
