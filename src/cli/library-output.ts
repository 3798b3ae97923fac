import { format } from "node:util";
import {
  type LibraryWarning,
  reportLibraryWarning,
  routeLibraryWarnings,
} from "../providers/library-warnings.js";
import { writeError } from "./errors.js";

const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/**
 * In the CLI, stdout is the output format's and stderr carries cairn's own lines. What a library
 * reports (src/providers/library-warnings.ts) or prints through the console — cairn itself never
 * uses it — is held and shown once, after cairn's own lines, as `cairn: warning from <library>: …`;
 * with CAIRN_DEBUG=1 at once, where it happens. Call `flush()` when cairn has said its last word.
 */
export function captureLibraryOutput(env: NodeJS.ProcessEnv): { flush(): void } {
  const held: LibraryWarning[] = [];
  const debug = Boolean(env.CAIRN_DEBUG);
  routeLibraryWarnings((warning) => (debug ? show(warning) : held.push(warning)));
  for (const method of CONSOLE_METHODS) {
    // A console.log from a library would otherwise land in the middle of the stream-json output.
    console[method] = (...args: unknown[]) => reportLibraryWarning("a library", format(...args));
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
