import { StringDecoder } from "node:string_decoder";

export const DEFAULT_HEAD_CHARS = 15_000;
export const DEFAULT_TAIL_CHARS = 15_000;

/**
 * Collects a byte stream as text while keeping only its head and tail, so a command that prints
 * gigabytes costs a bounded amount of memory. Bytes are decoded with a streaming decoder, so a
 * UTF-8 sequence split across chunks is never broken, and the cuts fall between code points.
 */
export class CappedOutput {
  private readonly decoder = new StringDecoder("utf8");
  private head = "";
  private tail = "";
  private totalChars = 0;
  private headFull = false;

  /** `mirror` also gets the decoded text (a shell's interleaved stdout and stderr, in arrival order). */
  constructor(
    private readonly headLimit = DEFAULT_HEAD_CHARS,
    private readonly tailLimit = DEFAULT_TAIL_CHARS,
    private readonly mirror?: CappedOutput,
  ) {}

  write(chunk: Buffer | string): void {
    this.push(typeof chunk === "string" ? chunk : this.decoder.write(chunk));
  }

  /** Flushes an incomplete trailing sequence (decoded as U+FFFD, as the bytes really were cut). */
  end(): void {
    this.push(this.decoder.end());
  }

  /** Characters dropped between head and tail. */
  get omittedChars(): number {
    return this.totalChars - this.head.length - this.keptTail().length;
  }

  get truncated(): boolean {
    return this.omittedChars > 0;
  }

  /** The kept text, with a note in the middle saying how much was cut. */
  toString(): string {
    const tail = this.keptTail();
    const omitted = this.totalChars - this.head.length - tail.length;
    if (omitted === 0) return this.head + tail;
    return `${this.head}\n\n[... ${omitted} characters of output omitted ...]\n\n${tail}`;
  }

  private push(text: string): void {
    if (!text) return;
    this.mirror?.write(text);
    this.totalChars += text.length;
    let rest = text;
    if (!this.headFull) {
      let room = this.headLimit - this.head.length;
      if (rest.length <= room) {
        this.head += rest;
        return;
      }
      // Never end the head on the first half of a surrogate pair.
      if (room > 0 && isHighSurrogate(rest.charCodeAt(room - 1))) room -= 1;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
      this.headFull = true;
    }
    this.tail += rest;
    // Trim only once the tail is well over its limit, so long outputs cost amortised O(n), not O(n^2).
    if (this.tail.length > this.tailLimit * 2) this.tail = this.keptTail();
  }

  /** The last `tailLimit` characters, not starting on the second half of a surrogate pair. */
  private keptTail(): string {
    let start = this.tail.length - this.tailLimit;
    if (start <= 0) return this.tail;
    if (isLowSurrogate(this.tail.charCodeAt(start))) start += 1;
    return this.tail.slice(start);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
