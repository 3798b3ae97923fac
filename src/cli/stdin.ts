/** Without any input after this long, a hint on stderr says what cairn is waiting for. */
export const STDIN_HINT_MS = 3000;

/**
 * Reads the whole of piped stdin as the prompt. Only called when no prompt was given as an argument
 * and stdin is not a terminal: an inherited stdin that never closes would otherwise hang the run,
 * which is why an argument always wins and stdin is then never touched. One final newline (what
 * `echo` adds) is dropped. Rejects when `signal` aborts (Ctrl-C while waiting).
 */
export function readPromptFromStdin(
  signal: AbortSignal,
  input: NodeJS.ReadableStream = process.stdin,
  hint: () => void = defaultHint,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(hint, STDIN_HINT_MS);
    timer.unref();
    const done = (error?: Error) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", done);
      input.pause();
      if (error) reject(error);
      else
        resolve(
          Buffer.concat(chunks)
            .toString("utf8")
            .replace(/\r?\n$/, ""),
        );
    };
    const onData = (chunk: Buffer | string) => {
      clearTimeout(timer);
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    };
    const onEnd = () => done();
    const onAbort = () => done(signal.reason instanceof Error ? signal.reason : new Error("interrupted"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", done);
  });
}

function defaultHint(): void {
  process.stderr.write(
    "cairn: waiting for the prompt on stdin (give it as an argument instead, or close stdin)\n",
  );
}
