/**
 * `Headers` and `FormData` for the official clients (@anthropic-ai/sdk, openai) that do not load
 * Node's `fetch` implementation, and a `ReadableStream` check that does not load Node's web streams.
 *
 * In Node 20 the globals `Headers` and `FormData` are lazy getters that load all of undici (about
 * 20–25 ms of a one-line run, docs/performance.md); the clients build every request's headers with
 * `new Headers()` and check every body with `instanceof FormData`. The build points the clients'
 * `Headers` and `FormData` at these instead (scripts/post-build.mjs), and their requests go out
 * through `nodeFetch` (node-fetch.ts), so a run never loads undici.
 */

/**
 * Names are case-insensitive and values of a repeated name are joined with ", ", as in `Headers`;
 * names and values are not validated (the HTTP layer refuses bad ones).
 */
export class LightHeaders {
  readonly #values = new Map<string, string>();

  constructor(init?: HeadersInitLike) {
    if (init === undefined || init === null) return;
    for (const [name, value] of headerPairs(init)) this.append(name, value);
  }

  /** `instanceof` holds for undici's `Headers` too, so the client keeps treating both as headers. */
  static [Symbol.hasInstance](value: unknown): boolean {
    const candidate = value as { get?: unknown; append?: unknown; entries?: unknown } | null;
    return (
      typeof candidate === "object" &&
      candidate !== null &&
      typeof candidate.get === "function" &&
      typeof candidate.append === "function" &&
      typeof candidate.entries === "function"
    );
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const text = String(value);
    const current = this.#values.get(key);
    this.#values.set(key, current === undefined ? text : `${current}, ${text}`);
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), String(value));
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  getSetCookie(): string[] {
    const value = this.#values.get("set-cookie");
    return value === undefined ? [] : [value];
  }

  forEach(callback: (value: string, name: string, headers: LightHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  /** In name order, as `Headers` iterates. */
  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#values].sort(byName);
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export type HeadersInitLike =
  | Iterable<readonly [string, string]>
  | Record<string, string | readonly string[] | undefined>
  | { forEach(callback: (value: string, name: string) => void): void };

/** The name/value pairs of any headers value `fetch` accepts. */
export function headerPairs(init: HeadersInitLike): [string, string][] {
  const pairs: [string, string][] = [];
  // An array's own entries() would give [index, pair]; a Headers' gives [name, value].
  const entries = Array.isArray(init)
    ? undefined
    : (init as { entries?: () => Iterable<readonly [string, string]> }).entries;
  if (typeof entries === "function" || Symbol.iterator in init) {
    const iterable =
      typeof entries === "function" ? entries.call(init) : (init as Iterable<readonly [string, string]>);
    for (const [name, value] of iterable) pairs.push([name, value]);
    return pairs;
  }
  for (const [name, value] of Object.entries(
    init as Record<string, string | readonly string[] | undefined>,
  )) {
    if (value === undefined) continue;
    if (typeof value === "string") pairs.push([name, value]);
    else for (const each of value) pairs.push([name, each]);
  }
  return pairs;
}

/**
 * The global `FormData`, loaded only when one is made (file uploads, which cairn does not send);
 * `instanceof` recognises a form by its tag without loading anything.
 */
export class LazyFormData {
  constructor(...args: unknown[]) {
    const Real = globalThis.FormData as unknown as new (...rest: unknown[]) => object;
    // biome-ignore lint/correctness/noConstructorReturn: a stand-in for the real class
    return new Real(...args) as LazyFormData;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "FormData"
    );
  }
}

/**
 * `globalThis.ReadableStream && value instanceof globalThis.ReadableStream`, which the Anthropic
 * client asks of every request body, without touching the global unless the value could be one: the
 * global's first use loads Node's web streams (about a millisecond of every run). In Node 22 and 24
 * even reading its property descriptor does (the global is a lazy data property there, no longer a
 * getter), so nothing but the value is looked at first: every `ReadableStream`, Node's own and its
 * subclasses, carries the tag, and a request body (a string, bytes) does not.
 */
export function isReadableStreamBody(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if ((value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] !== "ReadableStream") return false;
  return typeof globalThis.ReadableStream === "function" && value instanceof globalThis.ReadableStream;
}

function byName([a]: [string, string], [b]: [string, string]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
