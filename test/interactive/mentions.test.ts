import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { ENTER, inputRows, ready, skipped, startCairn, TAB, userTexts } from "./cairn-terminal.js";

/**
 * `@` mentions in the interactive mode (docs/interactive.md, "Mentions"): fuzzy completion of the
 * workspace's files and folders that .gitignore leaves, and the mentioned text sent with the prompt.
 */
const numbered = Array.from({ length: 30 }, (_, i) => `const line${i + 1} = ${i + 1};`).join("\n");

describe(`interactive @ mentions${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "@ completes files and folders fuzzily, skipping what .gitignore ignores; a mention with #L10-12 sends those lines, a folder its entries",
    async () => {
      const { t, server, dir } = await startCairn([reply().text("Seen lines ten to twelve.")], [], {
        files: {
          ".gitignore": "dist/\n",
          "src/alpha-service.ts": `${numbered}\n`,
          "src/lib/beta.ts": "export const beta = 1;\n",
          "dist/alpha-service.js": "built\n",
        },
      });
      await ready(t);
      t.type("look at @alphserv");
      await t.waitFor(
        () => t.screen().some((row) => row.trim() === "@src/alpha-service.ts"),
        "the completion",
      );
      expect(t.screen().join("\n")).not.toContain("dist/alpha-service.js");
      t.type(TAB);
      await t.waitFor(() => inputRows(t)[0] === "› look at @src/alpha-service.ts", "the completed mention");
      t.type("\x7f#L10-12 and @src/l");
      await t.waitFor(() => t.screen().some((row) => row.trim() === "@src/lib/"), "the folder offered");
      t.type(TAB);
      await t.waitFor(() => inputRows(t)[0]?.endsWith("and @src/lib/") === true, "the completed folder");
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Seen lines ten to twelve."), "the answer");
      const sent = userTexts(server.requests[0]!.body);
      expect(sent[0]).toBe("look at @src/alpha-service.ts#L10-12 and @src/lib/");
      const file = sent.find((text) => text.startsWith("Called the Read tool"))!;
      expect(file).toContain(
        JSON.stringify({ file_path: `${dir}/src/alpha-service.ts`, offset: 10, limit: 3 }),
      );
      expect(file).toContain("    10\tconst line10 = 10;");
      expect(file).toContain("    12\tconst line12 = 12;");
      expect(file).not.toContain("line13");
      expect(file).not.toContain("line9 ");
      const folder = sent.find((text) => text.startsWith("Called the LS tool"))!;
      expect(folder).toContain("- beta.ts");
    },
  );

  test.skipIf(skipped !== "")(
    "a mention of a file a deny rule keeps from Read is not attached, and that is said",
    async () => {
      const { t, server } = await startCairn(
        [reply().text("No secrets seen.")],
        ["--disallowedTools", "Read(secret.txt)"],
        {
          files: { "secret.txt": "the secret value\n" },
        },
      );
      await ready(t);
      t.type(`what is in @secret.txt ${ENTER}`);
      await t.waitFor((text) => text.includes("No secrets seen."), "the answer");
      expect(t.all().join("\n")).toContain("secret.txt was not attached");
      expect(JSON.stringify(server.requests[0]!.body)).not.toContain("the secret value");
    },
  );
});
