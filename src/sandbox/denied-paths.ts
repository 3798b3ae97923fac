import path from "node:path";
import { resolvePhysical } from "../permissions/paths.js";
import { isInsideOrSame } from "./paths.js";
import type { SandboxPolicy } from "./policy.js";

/**
 * The paths a run's settings deny (SDK `sandbox.filesystem.denyRead` / `denyWrite`,
 * `credentials.files`), as cairn's own file tools see them. The OS sandbox hides them from shell
 * commands; these checks hold for Read, Grep, Glob, LS, Edit and Write in every mode, also where
 * the sandbox is off or cannot run: a deny a user set never depends on bubblewrap being installed.
 */
type Denied = Pick<SandboxPolicy, "readDenied" | "writeDenied">;

/** Why `absolute` may not be read or written (naming the setting), or undefined when it may. */
export function deniedAccess(
  policy: Denied | undefined,
  absolute: string,
  access: "read" | "write",
): string | undefined {
  if (!policy || (policy.readDenied.length === 0 && policy.writeDenied.length === 0)) return undefined;
  const forms = pathForms(absolute);
  // A path denied for reading is not written either: its content would show in an edit's diff.
  if (matches(policy.readDenied, forms))
    return `${absolute} is denied by the sandbox setting filesystem.denyRead: cairn's tools neither read nor change it`;
  if (access === "write" && matches(policy.writeDenied, forms))
    return `${absolute} is denied by the sandbox setting filesystem.denyWrite: cairn's tools do not change it`;
  return undefined;
}

/** Whether a file a search came across is one nothing of the run may read (it is left out). */
export function isReadDenied(policy: Denied | undefined, absolute: string): boolean {
  if (!policy || policy.readDenied.length === 0) return false;
  return matches(policy.readDenied, pathForms(absolute));
}

function matches(denied: readonly string[], forms: readonly string[]): boolean {
  return denied.some((entry) => forms.some((form) => isInsideOrSame(entry, form)));
}

/** The path as given and where it really leads (symbolic links followed, missing parts kept). */
function pathForms(absolute: string): string[] {
  const lexical = path.resolve(absolute);
  try {
    return [lexical, resolvePhysical(lexical).real];
  } catch {
    return [lexical];
  }
}
