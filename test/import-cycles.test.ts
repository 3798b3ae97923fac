import { describe, expect, test } from "vitest";
import { sourceImports, sourceModules } from "./helpers/source-imports.js";

/**
 * No module of src/ depends on itself through others. An import cycle makes the order in which
 * modules are evaluated depend on which one is loaded first: in the CLI's CommonJS bundle a module
 * can then read another's binding before that module has run (undefined, or a TDZ error), and
 * neither module of the cycle can be understood, tested or moved without the other.
 *
 * Counted: every import that exists at run time, static (`import`, `export … from`, `require`) and
 * lazy (`import()`). Type-only imports are not: they are erased from the build, so they cannot
 * change what runs first, and types that name each other (an event naming a tool's declaration,
 * the declaration naming the event) are ordinary TypeScript. test/layering.test.ts keeps type-only
 * imports between folders in their layers.
 */
type Graph = ReadonlyMap<string, readonly string[]>;

/**
 * The import cycles of `graph`, each as a readable chain (`a.ts → b.ts → a.ts`): the strongly
 * connected components (Tarjan), and in each the shortest cycle through each of its modules, once.
 */
function importCycles(graph: Graph): string[] {
  const cycles: string[] = [];
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    const [only] = component;
    if (component.length === 1 && !graph.get(only!)?.includes(only!)) continue;
    const seen = new Set<string>();
    for (const start of [...component].sort()) {
      const chain = shortestCycle(graph, start, members);
      const key = [...chain.slice(1)].sort().join("\n");
      if (seen.has(key)) continue;
      seen.add(key);
      cycles.push(chain.join(" → "));
    }
  }
  return cycles.sort();
}

function stronglyConnected(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** `start → … → start` by the fewest imports, within `members` (breadth first). */
function shortestCycle(graph: Graph, start: string, members: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const chain = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at))
          chain.unshift(at);
        return [start, ...chain];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  throw new Error(`${start} is on no cycle`);
}

describe("import cycles", () => {
  test("no module of src/ imports itself through others (type-only imports aside)", () => {
    const graph = new Map<string, string[]>(sourceModules().map((module) => [module, []]));
    for (const { from, to, kind } of sourceImports()) if (kind !== "type") graph.get(from)!.push(to);
    expect(graph.size).toBeGreaterThan(200);
    expect(importCycles(graph)).toEqual([]);
  });

  test("a cycle is reported as its chain of imports", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["d.ts"]],
      ["e.ts", ["a.ts"]],
    ]);
    expect(importCycles(graph)).toEqual(["a.ts → b.ts → c.ts → a.ts", "d.ts → d.ts"]);
  });
});
