import type { SteeringPrompt } from "../engine/loop-steering.js";
import type { PromptInput } from "./session.js";

/**
 * The prompts sent with `whenBusy: "steer"` while a turn runs, until that turn takes them (at its
 * next model call, src/engine/loop-steering.ts). A prompt the turn did not take before it ended
 * (it was interrupted, or ended on a hook's stop) is given back, and runs as a queued turn of its own.
 */
export class SteeringInbox {
  private waiting: { input: PromptInput; settle: (taken: boolean) => void }[] = [];
  private accepting = false;

  /** A turn starts: it takes steering prompts with the function this gives, until `close()`. */
  open(): () => SteeringPrompt[] {
    this.accepting = true;
    return () => {
      const taken = this.waiting.splice(0);
      for (const entry of taken) entry.settle(true);
      return taken.map(({ input }) => input);
    };
  }

  /** The turn ended: what it did not take is given back (in the order it came). */
  close(): void {
    this.accepting = false;
    for (const entry of this.waiting.splice(0)) entry.settle(false);
  }

  /**
   * Hands a prompt to the running turn: resolves true once the turn took it, false when the turn
   * ended first. Undefined when no turn is running that takes prompts.
   */
  offer(input: PromptInput): Promise<boolean> | undefined {
    if (!this.accepting) return undefined;
    return new Promise((settle) => this.waiting.push({ input, settle }));
  }
}
