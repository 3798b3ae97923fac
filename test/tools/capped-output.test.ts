import { describe, expect, it } from "vitest";
import { CappedOutput } from "../../src/tools/capped-output.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("CappedOutput", () => {
  it("keeps short output whole", () => {
    const out = new CappedOutput(10, 10);
    out.write(Buffer.from("hello "));
    out.write(Buffer.from("world"));
    out.end();
    expect(out.toString()).toBe("hello world");
    expect(out.truncated).toBe(false);
  });

  it("keeps head and tail and counts what it cut", () => {
    const out = new CappedOutput(5, 5);
    for (const piece of ["01234", "56789", "abcde", "fghij"]) out.write(Buffer.from(piece));
    out.end();
    expect(out.omittedChars).toBe(10);
    expect(out.toString()).toBe("01234\n\n[... 10 characters of output omitted ...]\n\nfghij");
  });

  it("never splits a UTF-8 sequence across chunks", () => {
    const bytes = Buffer.from("é€👋".repeat(50));
    const out = new CappedOutput(1000, 1000);
    for (let i = 0; i < bytes.length; i++) out.write(bytes.subarray(i, i + 1));
    out.end();
    expect(out.toString()).toBe("é€👋".repeat(50));
  });

  it("never cuts a surrogate pair at the head or tail boundary", () => {
    const out = new CappedOutput(3, 3);
    out.write(Buffer.from("ab👋cd"));
    out.write(Buffer.from("x".repeat(20)));
    out.write(Buffer.from("yy👋👋"));
    out.end();
    const text = out.toString();
    expect(text).not.toMatch(LONE_SURROGATE);
    expect(text.startsWith("ab\n")).toBe(true);
    expect(text.endsWith("\n👋")).toBe(true);
  });

  it("stays bounded on a large stream", () => {
    const out = new CappedOutput(100, 100);
    const chunk = Buffer.from("y\n".repeat(32_768));
    for (let i = 0; i < 200; i++) out.write(chunk);
    out.end();
    expect(out.toString().length).toBeLessThan(300);
    expect(out.omittedChars).toBe(200 * 65_536 - 200);
  });
});
