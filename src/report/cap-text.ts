import type { CappedText } from "./report-data.js";

/**
 * A text cut to `cap` characters: the first two thirds and the last third are kept (a command's
 * error is usually at its end), with a line in between that says how much is missing.
 */
export function capText(text: string, cap: number): CappedText {
  if (text.length <= cap) return { text, chars: text.length, cut: false };
  const head = Math.ceil((cap * 2) / 3);
  const tail = cap - head;
  const missing = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n… ${missing.toLocaleString("en-US")} characters cut (the report keeps ${cap.toLocaleString("en-US")} of this text) …\n${tail > 0 ? text.slice(-tail) : ""}`,
    chars: text.length,
    cut: true,
    cap,
  };
}

/** What --redact leaves of a text: its size. */
export function redactedText(text: string): CappedText {
  return { text: "", chars: text.length, cut: false, redacted: true };
}
