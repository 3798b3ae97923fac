import type { BackgroundShells } from "../tools/background-shells.js";
import type { Styles } from "./style.js";
import { printable, truncate } from "./text-width.js";

/**
 * The background shells the model started (Bash `run_in_background`) while they run: one row each
 * in the live region, above the input, whether or not a turn runs (they outlive turns), gone once
 * the shell ends — on its own, by KillShell, by its timeout. The session's shells are those of its
 * run, assembled when the run is (and again after `/clear` or `/resume`), so each frame asks for the
 * current run's and follows it: a shell that starts or ends redraws (`redraw`).
 */
export class BackgroundView {
  private watched: BackgroundShells | undefined;
  private unwatch: (() => void) | undefined;

  constructor(private readonly redraw: () => void) {}

  rows(shells: BackgroundShells | undefined, styles: Styles, width: number): string[] {
    if (shells !== this.watched) {
      this.unwatch?.();
      this.watched = shells;
      this.unwatch = shells?.onChange(this.redraw);
    }
    return (shells?.running() ?? []).map((shell) => {
      const command = printable(shell.command).replace(/\n/g, " ⏎ ");
      return styles.dim(truncate(`◇ ${shell.id} in the background: ${command}`, width));
    });
  }
}
