import { dirname, relative, resolve } from "node:path";
import { REPO } from "../conformance/pm/helpers.js";

/** The relative link targets of a markdown text found in `from`, as paths from the repository root. */
export function linksIn(text: string, from: string): string[] {
  return [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((link) => link[1]!)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => relative(REPO, resolve(REPO, dirname(from), target)));
}
