import { MessageQueue } from "./message-queue.js";

type Step<T> = { from: "prompt" | "streamed"; result: IteratorResult<T> };

/**
 * The user messages of a query: its prompt iterable (if any) and every stream given to
 * `Query.streamInput()`, in arrival order. Done once the prompt iterable is done and no `streamInput`
 * stream is still open.
 */
export class QueryInput<T> {
  private readonly streamed = new MessageQueue<T>();
  private readonly streamedIterator = this.streamed[Symbol.asyncIterator]();
  private open = 0;
  private over = false;
  private promptDone: boolean;
  private pendingPrompt: Promise<Step<T>> | undefined;
  private pendingStreamed: Promise<Step<T>> | undefined;

  constructor(private readonly prompt: AsyncIterator<T> | undefined) {
    this.promptDone = prompt === undefined;
  }

  /** Feeds a stream's messages in; resolves when it is read to its end. */
  async add(stream: AsyncIterable<T>): Promise<void> {
    if (this.over) {
      throw new Error(
        "cairn Query.streamInput(): the query takes no more input (a string prompt's query ends with its result; a prompt iterable's when it ends).",
      );
    }
    this.open += 1;
    try {
      for await (const message of stream) this.streamed.push(message);
    } finally {
      this.open -= 1;
      this.endIfOver();
    }
  }

  /** Whether the prompt iterable itself was read to its end. */
  get promptExhausted(): boolean {
    return this.promptDone && this.prompt !== undefined;
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    this.endIfOver();
    this.pendingStreamed ??= this.streamedIterator.next().then((result) => ({ from: "streamed", result }));
    if (!this.promptDone && this.prompt) {
      this.pendingPrompt ??= this.prompt.next().then((result) => ({ from: "prompt", result }));
    }
    const step = await Promise.race([
      this.pendingStreamed,
      ...(this.pendingPrompt ? [this.pendingPrompt] : []),
    ]);
    if (step.from === "streamed") this.pendingStreamed = undefined;
    else this.pendingPrompt = undefined;
    if (step.from === "prompt" && step.result.done) {
      this.promptDone = true;
      return this.next();
    }
    return step.result.done ? { done: true, value: undefined } : step.result;
  }

  private endIfOver(): void {
    if (this.promptDone && this.open === 0) {
      this.over = true;
      this.streamed.end();
    }
  }
}
