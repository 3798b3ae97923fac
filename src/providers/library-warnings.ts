import { format } from "node:util";

/**
 * What client libraries print on their own: the Anthropic client `console.warn`s a notice before
 * each request to a deprecated model (its `logLevel: "off"` does not cover it), node-llama-cpp logs
 * llama.cpp's errors. Printed where they happen, these lines would come before cairn's own error
 * line, and programs that show the first stderr line as the error would show them instead. So they
 * are reported here, each distinct text once per process, and the front door decides where they go:
 * the CLI shows them after its own lines (src/cli/library-output.ts); in-process (the SDK) they are
 * Node process warnings, code CAIRN_LIBRARY_WARNING, as cairn's other SDK warnings.
 */
export type LibraryWarning = { library: string; message: string };
export type LibraryWarningSink = (warning: LibraryWarning) => void;

const reported = new Set<string>();
let sink: LibraryWarningSink = emitProcessWarning;

export function reportLibraryWarning(library: string, message: string): void {
  const text = message.trim();
  const key = `${library}\n${text}`;
  if (text === "" || reported.has(key)) return;
  reported.add(key);
  sink({ library, message: text });
}

/** Sends library warnings to `next` from now on (a front door's choice). */
export function routeLibraryWarnings(next: LibraryWarningSink): void {
  sink = next;
}

/**
 * Runs `call` with `console.warn` reporting to `library`'s warnings, for a synchronous library call
 * known to warn (the console is the host program's in the SDK: it is only borrowed for the call).
 */
export function withLibraryWarnings<T>(library: string, call: () => T): T {
  const original = console.warn;
  console.warn = (...args: unknown[]) => reportLibraryWarning(library, format(...args));
  try {
    return call();
  } finally {
    console.warn = original;
  }
}

function emitProcessWarning({ library, message }: LibraryWarning): void {
  process.emitWarning(`${library}: ${message}`, { code: "CAIRN_LIBRARY_WARNING" });
}
