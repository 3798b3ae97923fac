import { describe, expect, test } from "vitest";
import { Slots } from "../../src/agents/slots.js";

/** How many subagents run at once: the Agent tool's bound (MAX_CONCURRENT_SUBAGENTS). */
describe("Slots", () => {
  test("at most `size` holders; the next waits for a release, in order", async () => {
    const slots = new Slots(2);
    const signal = new AbortController().signal;
    const first = await slots.acquire(signal);
    await slots.acquire(signal);
    const order: string[] = [];
    const third = slots.acquire(signal).then((release) => {
      order.push("third");
      return release;
    });
    const fourth = slots.acquire(signal).then(() => order.push("fourth"));
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // a second call of the same release frees nothing more
    (await third)();
    await fourth;
    expect(order).toEqual(["third", "fourth"]);
  });

  test("a wait ends when the signal aborts, and the slot it did not get stays free", async () => {
    const slots = new Slots(1);
    const release = await slots.acquire(new AbortController().signal);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error("interrupted"));
    await expect(waiting).rejects.toThrow("interrupted");
    release();
    const again = await slots.acquire(new AbortController().signal);
    expect(typeof again).toBe("function");
  });
});
