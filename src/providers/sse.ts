import { isAscii } from "node:buffer";

/** Receives one Server-Sent Events message: its `event` name (null when it had none) and its data. */
export type SseListener = (event: string | null, data: string) => void;

/**
 * A shortcut for the one message shape that makes up most of a stream (a text delta): `pattern`, a
 * sticky (`y`) regular expression, matches such a message whole — its lines and the blank line that
 * ends it, `\n` line ends only — and `take` is called with the match instead of the listener. It
 * must do exactly what the listener would do with that message; anything the pattern does not match
 * goes the general way.
 */
export type SseShortcut = {
  pattern: RegExp;
  take(match: RegExpExecArray): void;
};

/**
 * An incremental Server-Sent Events decoder that handles a whole network chunk in one synchronous
 * call. The official clients' parsers yield one message at a time through async generators, which at
 * tens of thousands of events a second costs more than the parsing itself (docs/performance.md).
 *
 * The rules are those of the Anthropic client's parser (`_iterSSEMessages`), so a stream decodes to
 * the same messages (test/providers/sse.test.ts compares the two): lines end with `\n`, `\r\n` or
 * `\r` (also split across chunks); a BOM at the start of a line is dropped; a line starting with `:`
 * is a comment; only `event` and `data` fields count, with one space after the colon dropped;
 * several `data` lines are joined with `\n`; an empty line ends a message, unless it had neither an
 * event name nor data. A message not ended by an empty line when the stream ends is dropped.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /**
   * True until a chunk with a byte over 0x7f arrives: until then the text decoder has been given
   * nothing, so it holds no half character, and each chunk is its own text.
   */
  private asciiSoFar = true;
  /** Text not taken yet: an unfinished message (or line), or a `\r` that may precede `\n`. */
  private pending = "";
  private event: string | null = null;
  private data: string | undefined;

  constructor(
    private readonly onMessage: SseListener,
    private readonly shortcut?: SseShortcut,
  ) {}

  /** Decodes one chunk of the body, calling the listener for each message it completes. */
  push(chunk: Uint8Array): void {
    const decoded = this.decode(chunk);
    if (decoded === "") return;
    const text = this.pending + decoded;
    if (text.includes("\r") || this.event !== null || this.data !== undefined) {
      this.pushLines(text);
      return;
    }
    // The common case: `\n` line ends, and no message half read. Cutting the text into messages at
    // blank lines is one native call; reading it line by line in JavaScript costs about twice as
    // much in a process whose code is not optimised yet (every CLI run).
    if (this.shortcut === undefined) {
      const messages = text.split("\n\n");
      this.pending = messages.pop() ?? "";
      for (const message of messages) this.takeMessage(message);
      return;
    }
    // With a shortcut, each message is first tried against its pattern: one native match that also
    // finds where the message ends, and no slicing or JSON.parse for the caller (docs/performance.md).
    const shortcut = this.shortcut;
    const pattern = shortcut.pattern;
    let start = 0;
    try {
      for (;;) {
        pattern.lastIndex = start;
        const match = matchAt(pattern, text);
        if (match !== null) {
          start = pattern.lastIndex;
          shortcut.take(match);
          continue;
        }
        const end = text.indexOf("\n\n", start);
        if (end === -1) break;
        const message = text.slice(start, end);
        start = end + 2;
        this.takeMessage(message);
      }
    } finally {
      // Also when a listener throws: what was taken stays taken, as with the messages cut above.
      this.pending = text.slice(start);
    }
  }

  /**
   * ASCII bytes are their own Latin-1 text: copying them into a string is several times cheaper
   * than the UTF-8 decoder in a process whose code is not optimised yet. The first other chunk goes
   * to the decoder, and so does everything after it (a character may be split across chunks).
   */
  private decode(chunk: Uint8Array): string {
    if (this.asciiSoFar && isAscii(chunk)) {
      const bytes = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      return bytes.toString("latin1");
    }
    this.asciiSoFar = false;
    return this.decoder.decode(chunk, { stream: true });
  }

  /** Call when the body has ended: takes its last lines. */
  end(): void {
    this.pushLines(this.pending + this.decoder.decode());
    // What is left is a line without its line end: taken as the client's parser takes it.
    const rest = this.pending;
    this.pending = "";
    if (rest === "") return;
    for (const line of rest.replace(/\r$/, "").split(/\r\n|[\n\r]/)) this.takeLine(line);
  }

  /** The lines of one message (no `\r` in them) and the blank line that ended it. */
  private takeMessage(message: string): void {
    // What the Messages API sends: exactly "event: NAME\ndata: DATA".
    if (message.startsWith("event: ")) {
      const newline = message.indexOf("\n");
      if (
        newline !== -1 &&
        message.startsWith("data: ", newline + 1) &&
        message.indexOf("\n", newline + 1) === -1
      ) {
        this.onMessage(message.slice(7, newline), message.slice(newline + 7));
        return;
      }
    }
    for (const line of message.split("\n")) this.takeLine(line);
    this.takeLine("");
  }

  /** Takes every complete line of `text` (any line ends), keeping the rest for the next chunk. */
  private pushLines(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 0x0a && code !== 0x0d) continue;
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next chunk.
      if (code === 0x0d && i + 1 === text.length) break;
      this.takeLine(text.slice(start, i));
      if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
      start = i + 1;
    }
    this.pending = text.slice(start);
  }

  private takeLine(line: string): void {
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line === "") {
      if (!this.event && this.data === undefined) return;
      const { event, data } = this;
      this.event = null;
      this.data = undefined;
      this.onMessage(event, data ?? "");
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== "event" && field !== "data") return;
    const value = colon === -1 ? "" : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    if (field === "event") this.event = value;
    else this.data = this.data === undefined ? value : `${this.data}\n${value}`;
  }
}

/**
 * The shortcut's match, or null for the general way: a message of millions of characters (one huge
 * text delta) overflows the regular expression engine's backtracking stack ("Maximum call stack
 * size exceeded"), and `JSON.parse` of the message has no such limit.
 */
function matchAt(pattern: RegExp, text: string): RegExpExecArray | null {
  try {
    return pattern.exec(text);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}
