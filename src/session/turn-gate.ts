/**
 * What a prompt does when it comes while a turn runs: `queue` waits for the turn to end (turns run
 * one at a time, in the order they came), `steer` joins the running turn at its next model call
 * (src/session/steering.ts; given back as a queued turn when that turn ends first), `reject`
 * refuses at once.
 */
export type WhenBusy = "queue" | "steer" | "reject";

/**
 * One turn at a time: the busy rule every door shares. `enter` resolves with the function that lets
 * the next prompt in; prompts that wait are let in in the order they came.
 */
export class TurnGate {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  get busy(): boolean {
    return this.holders > 0;
  }

  async enter(whenBusy: Exclude<WhenBusy, "steer">): Promise<() => void> {
    if (whenBusy === "reject" && this.holders > 0) throw new BusyError();
    this.holders += 1;
    const before = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await before;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      release();
    };
  }
}

/** Raised by a `reject` prompt while a turn runs. */
export class BusyError extends Error {
  constructor() {
    super("A turn is already running in this session.");
    this.name = "SessionBusyError";
  }
}
