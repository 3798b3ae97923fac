import type { PermissionAnswer, PermissionRequest } from "../session/events.js";
import { diffLines } from "./diff-rows.js";
import type { Key } from "./keys.js";
import { mcpCallRows } from "./mcp-call-rows.js";
import type { Ask, DetailRow } from "./question-picker.js";
import { ruleTexts } from "./save-rule.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

type Choice = { key: string; label: string; answer: PermissionAnswer; save?: string[]; note?: true };

const REJECTED = "The user rejected this tool call.";

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
  /** The note being typed after `d` (undefined: choosing). */
  note: string | undefined;
  /** The rules "always allow" saves to the user config, once it is the answer taken. */
  toSave: string[] | undefined;

  /** While the note is typed, Esc goes back to the choices instead of interrupting the turn. */
  get takesEscape(): boolean {
    return this.note !== undefined;
  }

  constructor(
    readonly request: PermissionRequest,
    /** The user config, where "always allow" saves its rules (named before saving). */
    private readonly userFile?: string,
  ) {
    const rules = ruleTexts(request.suggestions);
    this.choices = [
      { key: "y", label: "Yes, once", answer: { behavior: "allow" } },
      ...(request.suggestions.length > 0
        ? [
            {
              key: "a",
              label: "Yes, and allow such calls for this session",
              answer: { behavior: "allow" as const, updatedPermissions: request.suggestions },
            },
            ...(userFile
              ? [
                  {
                    key: "s",
                    label: `Yes, and always allow ${rules.join(", ")} (saved in the user config)`,
                    answer: { behavior: "allow" as const, updatedPermissions: request.suggestions },
                    save: rules,
                  },
                ]
              : []),
          ]
        : []),
      { key: "n", label: "No", answer: { behavior: "deny", message: REJECTED } },
      {
        key: "d",
        label: "No, and tell the model why (type a note)",
        answer: { behavior: "deny", message: REJECTED },
        note: true,
      },
    ];
  }

  /** What the call will do, for the scrollback (stays there after the answer). */
  details(): DetailRow[] {
    const { display, reason } = this.request;
    const rows: DetailRow[] = [{ text: printable(display.title), style: "title" }];
    for (const text of mcpCallRows(this.request.toolName, this.request.input) ?? [])
      rows.push({ text, style: "plain" });
    if (display.diff)
      for (const line of diffLines(display.diff))
        rows.push({
          text: `${line.sign} ${printable(line.text)}`,
          style: line.sign === "+" ? "added" : "removed",
        });
    rows.push({ text: printable(reason), style: "reason" });
    const always = this.choices.find((choice) => choice.save);
    if (always?.save && this.userFile)
      rows.push({
        text: `s saves ${always.save.join(", ")} to permissions.allow in ${this.userFile} (every later run allows such calls)`,
        style: "plain",
      });
    return rows;
  }

  /** A key: the answer it gives, or undefined (the key only moved the choice, typed, or did nothing). */
  key(key: Key): PermissionAnswer | undefined {
    if (this.note !== undefined) return this.noteKey(key);
    if (key.type === "text") {
      const choice = this.choices.find((one) => one.key === key.text.toLowerCase());
      return choice ? this.take(choice) : undefined;
    }
    if (key.type === "up") this.picked = this.picked === undefined ? 0 : Math.max(0, this.picked - 1);
    else if (key.type === "down")
      this.picked = this.picked === undefined ? 0 : Math.min(this.choices.length - 1, this.picked + 1);
    else if (key.type === "enter" && this.picked !== undefined) return this.take(this.choices[this.picked]!);
    return undefined;
  }

  private take(choice: Choice): PermissionAnswer | undefined {
    if (choice.note) {
      this.note = "";
      return undefined;
    }
    this.toSave = choice.save;
    return choice.answer;
  }

  /** Typing the note: Enter denies with it (an empty note denies without one), Esc goes back to the choices. */
  private noteKey(key: Key): PermissionAnswer | undefined {
    const note = this.note ?? "";
    if (key.type === "text" || key.type === "paste")
      this.note = note + printable(key.text).replace(/\n/g, " ");
    else if (key.type === "backspace") this.note = note.slice(0, -1);
    else if (key.type === "escape" || key.type === "ctrl-c") this.note = undefined;
    else if (key.type === "enter") {
      const said = note.trim();
      return { behavior: "deny", message: said ? `${REJECTED} The user said: ${said}` : REJECTED };
    }
    return undefined;
  }

  /** The question and its choices, for the live region. */
  rows(styles: Styles, width: number): string[] {
    const question = `Allow ${this.request.toolName}?`;
    if (this.note !== undefined)
      return [
        styles.bold(truncate(`${question} No. A note for the model (Enter sends, Esc goes back):`, width)),
        truncate(`› ${this.note}▏`, width),
      ];
    return [
      styles.bold(truncate(question, width)),
      ...this.choices.map((choice, i) => {
        const text = truncate(`${i === this.picked ? "›" : " "} ${choice.key}  ${choice.label}`, width);
        return i === this.picked ? styles.inverse(text) : text;
      }),
    ];
  }
}
