import path from "node:path";

/**
 * Resolves a path given by the model against the session's working directory. A leading `~` is
 * left literal on purpose: expanding home directories is a policy decision for the permission layer.
 */
export function resolveToolPath(cwd: string, p: string): string {
  return path.resolve(cwd, p);
}
