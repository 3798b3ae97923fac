import type { Key } from "./keys.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

export type PickerItem<T> = { label: string; detail?: string; value: T };

/**
 * A choice among a list, in the live region in place of the input (`/resume`'s sessions, `/rewind`'s
 * prompts, `/copy`'s code blocks): ↑/↓ move, Enter takes, Esc or Ctrl+C gives up. At most `shown`
 * rows at once, scrolled to the picked one.
 */
export class ListPicker<T> {
  private picked: number;

  constructor(
    readonly title: string,
    readonly items: PickerItem<T>[],
    private readonly done: (value: T | undefined) => void,
    options: { start?: number } = {},
  ) {
    this.picked = Math.max(0, Math.min(items.length - 1, options.start ?? 0));
  }

  key(key: Key): void {
    if (key.type === "up") this.picked = Math.max(0, this.picked - 1);
    else if (key.type === "down") this.picked = Math.min(this.items.length - 1, this.picked + 1);
    else if (key.type === "enter") this.done(this.items[this.picked]?.value);
    else if (key.type === "escape" || key.type === "ctrl-c") this.done(undefined);
  }

  rows(styles: Styles, width: number, room: number): string[] {
    const shown = Math.max(1, room - 2);
    const first = Math.max(0, Math.min(this.picked - shown + 1, this.items.length - shown));
    const rows = [styles.bold(truncate(this.title, width))];
    this.items.slice(first, first + shown).forEach((item, i) => {
      const index = first + i;
      const detail = item.detail ? `  ${item.detail}` : "";
      const text = truncate(
        `${index === this.picked ? "›" : " "} ${printable(item.label).replace(/\n/g, " ⏎ ")}${detail}`,
        width,
      );
      rows.push(index === this.picked ? styles.inverse(text) : text);
    });
    rows.push(styles.dim(truncate("↑/↓ choose · enter take · esc cancel", width)));
    return rows;
  }
}
