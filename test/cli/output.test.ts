import { PassThrough, Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { StdoutWriter } from "../../src/cli/output.js";

describe("StdoutWriter", () => {
  test("coalesces what one tick produces into one write, in order", async () => {
    const writes: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    const writer = new StdoutWriter(sink);
    writer.write("a\n");
    writer.write("b\n");
    await new Promise((resolve) => setImmediate(resolve));
    writer.write("c\n");
    await writer.flush();
    expect(writes.filter(Boolean)).toEqual(["a\nb\n", "c\n"]);
  });

  test("waits for drain when the reader is slow", async () => {
    const sink = new PassThrough({ highWaterMark: 4 });
    const writer = new StdoutWriter(sink);
    writer.write("0123456789");
    await new Promise((resolve) => setImmediate(resolve));
    const blocked = writer.ready();
    expect(blocked).toBeInstanceOf(Promise);
    sink.read();
    await blocked;
    expect(writer.ready()).toBeUndefined();
  });

  test("a reader that goes away (EPIPE) is reported once, and later writes are dropped", async () => {
    const sink = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const writer = new StdoutWriter(sink);
    const reasons: string[] = [];
    writer.onClosed = (error) => reasons.push(error.message);
    writer.write("line\n");
    await writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    writer.write("more\n");
    await writer.flush();
    expect(writer.closed).toBe(true);
    expect(reasons).toEqual(["write EPIPE"]);
  });
});
