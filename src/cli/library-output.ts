import { format } from "node:util";
import {
  type LibraryWarning,
  reportLibraryWarning,
  routeLibraryWarnings,
} from "../providers/library-warnings.js";
import { writeError } from "./errors.js";

/** What a library prints to say something went wrong: shown (once) as a warning. */
const WARNING_METHODS = ["warn", "error"] as const;
/** A library's progress chatter ("Running migrations…"): shown only with CAIRN_DEBUG=1. */
const CHATTER_METHODS = ["log", "info", "debug", "trace"] as const;

/**
 * In the CLI, stdout is the output format's and stderr carries cairn's own lines. What a library
 * reports (src/providers/library-warnings.ts) or warns about through the console — cairn itself
 * never uses it — is held and shown once, after cairn's own lines, as `cairn: warning from
 * <library>: …`; with CAIRN_DEBUG=1 at once, where it happens. A library's info-level console lines
 * are not warnings, and a healthy run says nothing on stderr: they are shown only with CAIRN_DEBUG=1.
 * Call `flush()` when cairn has said its last word.
 */
export function captureLibraryOutput(env: NodeJS.ProcessEnv): { flush(): void } {
  const held: LibraryWarning[] = [];
  const debug = Boolean(env.CAIRN_DEBUG);
  routeLibraryWarnings((warning) => (debug ? show(warning) : held.push(warning)));
  // A console.log from a library would otherwise land in the middle of the stream-json output.
  for (const method of WARNING_METHODS) {
    console[method] = (...args: unknown[]) => reportLibraryWarning("a library", format(...args));
  }
  for (const method of CHATTER_METHODS) {
    console[method] = (...args: unknown[]) => {
      if (debug) show({ library: "a library", message: format(...args) });
    };
  }
  return {
    flush() {
      for (const warning of held.splice(0)) show(warning);
    },
  };
}

function show({ library, message }: LibraryWarning): void {
  writeError(`warning from ${library}: ${message}`);
}
