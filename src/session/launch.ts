import type { Interrupts } from "../util/signals.js";
import type { SessionSetup } from "./session.js";

/**
 * What the CLI hands the interactive mode (which it does not import: the entry passes it in), kept
 * here, below both doors: the session the flags describe, and the first prompt when one was given.
 */
export type InteractiveLaunch = {
  setup: SessionSetup;
  prompt: string | undefined;
  /** `--screen-reader`: plain lines, no redraws. */
  screenReader: boolean;
  /** `--max-turns`: model calls each prompt may make. */
  maxTurns: number | undefined;
  interrupts: Interrupts;
};
