import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { CTRL_D, ENTER, ready, skipped, startCairn } from "./cairn-terminal.js";

/**
 * `TERM=linux` (docs/interactive.md, "The screen"): the Linux console's parser (console_codes(4),
 * drivers/tty/vt/vt.c) knows CSI sequences, ignores a DEC private mode or a CSI final it does not
 * know, ignores an OSC whose number starts with a digit up to its BEL, and prints raw whatever
 * else follows an ESC it does not know (a DCS `ESC P`, an APC `ESC _`, an OSC without a number,
 * a string ended by ST on a kernel without OSC support). Its 16 colours are the SGR 30–37 / 90–97
 * set; 256-colour and direct-colour SGRs are approximated only on recent kernels.
 */

/** Every escape sequence in `output`, or the raw rest of one the console could not parse. */
function sequences(output: string): string[] {
  const found: string[] = [];
  for (let i = output.indexOf("\x1b"); i >= 0; i = output.indexOf("\x1b", i + 1)) {
    const csi = /^\x1b\[[0-?]*[ -/]*[@-~]/.exec(output.slice(i));
    const osc = /^\x1b\][0-9][^\x07\x1b]*\x07/.exec(output.slice(i));
    found.push(csi?.[0] ?? osc?.[0] ?? `UNPARSED ${JSON.stringify(output.slice(i, i + 12))}`);
  }
  return found;
}

/**
 * The glyphs of code page 437, the kernel's own console font (with no font loaded), as Unicode: the
 * graphics of its control range and its upper half. Every console font has at least these.
 */
const CODE_PAGE_437 =
  "☺☻♥♦♣♠•◘○◙♂♀♪♫☼►◄↕‼¶§▬↨↑↓→←∟↔▲▼⌂" +
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐" +
  "└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

/** An SGR parameter list the Linux console shows: attributes and the 16 colours (no 38;5 / 38;2). */
const consoleSgr = (params: string) =>
  params === "" ||
  params.split(";").every((p) => /^(0|1|2|3|4|7|9|22|23|24|27|29|3[0-79]|4[0-79]|9[0-7]|10[0-7])$/.test(p));

describe(`interactive mode on TERM=linux${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "TERM=linux: only sequences the Linux console parses, only its 16 colours; the answer, a code block and a tool call readable",
    async () => {
      const answer =
        "# Result\n\nSome **bold** and `code` — “quoted”…\n\n- [x] checked\n- [ ] open\n\n```ts\nconst a: number = 1;\n```\n\nDone here.\n";
      const { t } = await startCairn(
        [reply().tool("Bash", { command: "echo hi from bash" }), reply().text(answer)],
        ["--allowedTools", "Bash(echo:*)"],
        { env: { TERM: "linux" } },
      );
      await ready(t);
      t.type(`Go${ENTER}`);
      await t.waitFor((text) => text.includes("Done here."), "the answer");
      await ready(t);
      t.type(CTRL_D);
      expect((await t.exited).exitCode).toBe(0);
      const text = t.all().join("\n");
      expect(text).toContain("echo hi from bash");
      expect(text).toContain("const a: number = 1;");
      const found = sequences(t.output());
      expect(found.filter((s) => s.startsWith("UNPARSED"))).toEqual([]);
      const sgrs = found.filter((s) => s.endsWith("m")).map((s) => s.slice(2, -1));
      expect(sgrs.length).toBeGreaterThan(0);
      expect(sgrs.filter((params) => !consoleSgr(params))).toEqual([]);
      // Only glyphs the console font has: cairn's own (the prompt, the tool's mark, the task boxes)
      // and the model's punctuation drawn with their code page 437 look-alikes.
      const glyphs = new Set(t.output().replace(/[\x00-\x7f]/g, ""));
      expect([...glyphs].filter((glyph) => !CODE_PAGE_437.includes(glyph))).toEqual([]);
      expect(text).toContain('- "quoted".');
      expect(text).toContain("√ checked");
    },
  );
});
