/**
 * What WebFetch read recently, by URL, for 15 minutes (as the reference's cache): the model often
 * reads a page again, for another part of it (`offset`) or another question. Only successful
 * pages are kept, at most `MAX_ENTRIES` of them; a permission check runs before every call all
 * the same.
 */
export const CACHE_TTL_MS = 15 * 60 * 1000;
const MAX_ENTRIES = 32;

type Entry<T> = { value: T; expires: number };

export class WebCache<T> {
  readonly #entries = new Map<string, Entry<T>>();

  get(url: string, now = Date.now()): T | undefined {
    const entry = this.#entries.get(url);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.#entries.delete(url);
      return undefined;
    }
    return entry.value;
  }

  set(url: string, value: T, now = Date.now()): void {
    this.#entries.delete(url);
    this.#entries.set(url, { value, expires: now + CACHE_TTL_MS });
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= MAX_ENTRIES) break;
      this.#entries.delete(key);
    }
  }
}
