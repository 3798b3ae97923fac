import { StringDecoder } from "node:string_decoder";

/** What one stream of a background shell may hold unread (characters); past it the oldest is dropped. */
export const UNREAD_OUTPUT_LIMIT = 200_000;

/**
 * The output of a stream that nobody has read yet. A background shell may print for hours between
 * two reads, so only the newest `limit` characters are kept: the tail is what tells how a server or
 * a watcher stands now. What was dropped is counted, so the reader can be told.
 */
export class UnreadOutput {
  private readonly decoder = new StringDecoder("utf8");
  private text = "";
  private dropped = 0;

  constructor(private readonly limit = UNREAD_OUTPUT_LIMIT) {}

  write(chunk: Buffer): void {
    this.push(this.decoder.write(chunk));
  }

  /** Flushes an incomplete trailing UTF-8 sequence (the stream has ended). */
  end(): void {
    this.push(this.decoder.end());
  }

  /** Everything unread (the kept tail) and how many characters were dropped before it; empties the buffer. */
  take(): { text: string; droppedChars: number } {
    if (this.text.length > this.limit) this.trim();
    const taken = { text: this.text, droppedChars: this.dropped };
    this.text = "";
    this.dropped = 0;
    return taken;
  }

  private push(text: string): void {
    if (!text) return;
    this.text += text;
    // Trim only once well over the limit, so a chatty process costs amortised O(n), not O(n^2).
    if (this.text.length > this.limit * 2) this.trim();
  }

  private trim(): void {
    let start = this.text.length - this.limit;
    // Never start on the second half of a surrogate pair.
    const code = this.text.charCodeAt(start);
    if (code >= 0xdc00 && code <= 0xdfff) start += 1;
    this.dropped += start;
    this.text = this.text.slice(start);
  }
}
