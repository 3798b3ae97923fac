/**
 * A fetched body as text the model can read: HTML as markdown (the readable part of the page,
 * found by Mozilla's Readability over linkedom's DOM, converted by turndown), JSON pretty-printed,
 * PDF as its text (unpdf), other text as it is. Anything else is named, not shown. The converters
 * are loaded on first use only (scripts/post-build.mjs keeps them out of the CLI's bundle).
 */

import { importPackage } from "../util/import-package.js";

export type PageText = { text: string; format: "markdown" | "json" | "text" | "pdf" | "binary" };

export async function pageText(body: Uint8Array, contentType: string): Promise<PageText> {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/pdf" || startsWith(body, "%PDF-"))
    return { text: await pdfText(body), format: "pdf" };
  if (type === "text/html" || type === "application/xhtml+xml" || (!type && looksLikeHtml(body)))
    return { text: await htmlToMarkdown(decode(body, contentType)), format: "markdown" };
  if (type === "application/json" || type.endsWith("+json")) {
    const raw = decode(body, contentType);
    try {
      return { text: JSON.stringify(JSON.parse(raw), null, 2), format: "json" };
    } catch {
      return { text: raw, format: "text" };
    }
  }
  if (type.startsWith("text/") || type.endsWith("+xml") || type === "application/xml" || isText(body, type))
    return { text: decode(body, contentType), format: "text" };
  return { text: "", format: "binary" };
}

function startsWith(body: Uint8Array, ascii: string): boolean {
  return Buffer.from(body.subarray(0, ascii.length)).toString("latin1") === ascii;
}

function looksLikeHtml(body: Uint8Array): boolean {
  const head = Buffer.from(body.subarray(0, 512)).toString("utf8").trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html");
}

/** No content type: text when the start has no NUL byte and decodes as UTF-8. */
function isText(body: Uint8Array, type: string): boolean {
  if (type) return false;
  const head = body.subarray(0, 4096);
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
    return true;
  } catch {
    return false;
  }
}

function decode(body: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

async function htmlToMarkdown(html: string): Promise<string> {
  const [{ parseHTML }, readability, turndownModule] = await Promise.all([
    importPackage<typeof import("linkedom")>("linkedom"),
    importPackage<
      typeof import("@mozilla/readability") & { default?: typeof import("@mozilla/readability") }
    >("@mozilla/readability"),
    importPackage<{ default: typeof import("turndown") }>("turndown"),
  ]);
  // CommonJS packages: their exports as named exports, or on `default`.
  const Readability = readability.Readability ?? readability.default?.Readability;
  const TurndownService = turndownModule.default;
  const { document } = parseHTML(html);
  const title = document.querySelector("title")?.textContent?.trim();
  let content: string | undefined;
  try {
    // Readability keeps the article and drops navigation, scripts and boilerplate.
    content =
      new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse()?.content ??
      undefined;
  } catch {
    content = undefined;
  }
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  turndown.remove(["script", "style", "noscript"]);
  const markdown = turndown.turndown(content ?? parseHTML(html).document.body?.innerHTML ?? html).trim();
  return title && !markdown.startsWith(`# ${title}`) ? `# ${title}\n\n${markdown}` : markdown;
}

async function pdfText(body: Uint8Array): Promise<string> {
  const { getDocumentProxy, extractText } = await importPackage<typeof import("unpdf")>("unpdf");
  // A copy: pdf.js takes the buffer over.
  const document = await getDocumentProxy(new Uint8Array(body), { verbosity: 0 });
  const { totalPages, text } = await extractText(document, { mergePages: false });
  return text.map((page, index) => `--- page ${index + 1} of ${totalPages} ---\n${page.trim()}`).join("\n\n");
}
