import path from "node:path";
import type { MediaBlock } from "../engine/messages.js";
import { takesMedia } from "../engine/provider.js";
import { readFile } from "../util/fs-async.js";
import type { ToolContext, ToolOutput } from "./types.js";

/**
 * Read of an image or a PDF: the file goes to the model as an image / document block beside a short
 * text, as the reference's Read does. The caps keep one block inside what the APIs take (Anthropic:
 * 5 MB per base64 image; 32 MB per request for PDFs) and a transcript line bounded.
 */
export const READ_IMAGE_MAX_BYTES = 3_750_000;
export const READ_PDF_MAX_BYTES = 10_000_000;

const MEDIA_EXTENSIONS: Readonly<Record<string, "image" | "pdf">> = {
  png: "image",
  jpg: "image",
  jpeg: "image",
  gif: "image",
  webp: "image",
  pdf: "pdf",
};

/** Whether Read shows this file as media (by extension; the bytes are checked when read). */
export function isMediaFile(filePath: string): boolean {
  return path.extname(filePath).slice(1).toLowerCase() in MEDIA_EXTENSIONS;
}

/** The media type the first bytes say, or undefined when they are not an image or PDF cairn sends. */
export function sniffMediaType(bytes: Buffer): string | undefined {
  const ascii = bytes.subarray(0, 12).toString("latin1");
  if (ascii.startsWith("\x89PNG\r\n\x1a\n")) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii.startsWith("GIF87a") || ascii.startsWith("GIF89a")) return "image/gif";
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") return "image/webp";
  if (ascii.startsWith("%PDF-")) return "application/pdf";
  return undefined;
}

/** Reads an image or PDF of `size` bytes for the model. */
export async function readMedia(filePath: string, size: number, ctx: ToolContext): Promise<ToolOutput> {
  const kind = MEDIA_EXTENSIONS[path.extname(filePath).slice(1).toLowerCase()]!;
  const cap = kind === "image" ? READ_IMAGE_MAX_BYTES : READ_PDF_MAX_BYTES;
  if (size > cap) {
    return {
      content: `Cannot show ${filePath}: it has ${size} bytes, more than the ${cap} a${kind === "image" ? "n image" : " PDF"} may have for Read.`,
      isError: true,
    };
  }
  const probe: MediaBlock =
    kind === "image"
      ? { type: "image", source: { type: "url", url: "" } }
      : { type: "document", source: { type: "url", url: "" } };
  if (!takesMedia(ctx.mediaInput, probe)) {
    return {
      content: `Cannot show ${filePath}: the model ${ctx.model ?? "in use"} does not take ${kind === "image" ? "images" : "PDF documents"}.`,
      isError: true,
    };
  }
  const bytes = await readFile(filePath, { signal: ctx.signal });
  const mediaType = sniffMediaType(bytes);
  if (!mediaType || (kind === "pdf") !== (mediaType === "application/pdf")) {
    return {
      content: `Cannot read ${filePath}: its bytes are not a ${kind === "image" ? "PNG, JPEG, GIF or WebP image" : "PDF"}, and Read shows text only otherwise.`,
      isError: true,
    };
  }
  const source = { type: "base64" as const, media_type: mediaType, data: bytes.toString("base64") };
  const media: MediaBlock =
    kind === "image"
      ? { type: "image", source }
      : { type: "document", source, title: path.basename(filePath) };
  return {
    content: `${kind === "image" ? "Image" : "PDF"} ${filePath} (${mediaType}, ${bytes.length} bytes) is attached.`,
    media: [media],
    // The print-mode `read` payload: no text lines (docs/tools.md).
    data: {
      path: filePath,
      content: "",
      isEmpty: bytes.length === 0,
      exceededLimit: false,
      totalLines: 0,
      totalChars: 0,
      mediaType,
      bytes: bytes.length,
    },
  };
}
