import type { RunExtras } from "../durable/run-extras.js";
import { IMAGE_MEDIA_TYPES, type ImageBlock } from "../engine/messages.js";
import { READ_IMAGE_MAX_BYTES, sniffMediaType } from "../tools/read-media.js";
import { ApiError } from "./http-json.js";

/** The reference takes at most 5 images with a prompt (its API pages and clients say so). */
export const MAX_PROMPT_IMAGES = 5;
/** One image's decoded size: Read's cap, which keeps its base64 inside Anthropic's 5 MB per image. */
export const MAX_PROMPT_IMAGE_BYTES = READ_IMAGE_MAX_BYTES;

/** The prompt of a create or follow-up: its text, and the images sent with it (as the model gets them). */
export type RequestPrompt = { text: string; images: ImageBlock[] };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,/i;

/**
 * `prompt: { text, images? }` of v0 and v1. Each image is the reference's
 * `{ data: <base64>, dimension?: { width, height } }`; `data` may be a `data:` URL, and `mimeType`
 * (the reference's SDK's name) may give the type. The type is read from the bytes (PNG, JPEG, GIF,
 * WebP); a given type must agree with them. Anything else is a 400 naming the image.
 */
export function requestPrompt(body: Record<string, unknown>): RequestPrompt {
  const prompt = body.prompt as { text?: unknown; images?: unknown } | undefined;
  if (!prompt || typeof prompt !== "object" || typeof prompt.text !== "string" || prompt.text.trim() === "")
    throw new ApiError(400, "invalid_request", "prompt.text is required.");
  if (prompt.images === undefined || prompt.images === null) return { text: prompt.text, images: [] };
  if (!Array.isArray(prompt.images))
    throw new ApiError(400, "invalid_request", "prompt.images must be an array.");
  if (prompt.images.length > MAX_PROMPT_IMAGES)
    throw new ApiError(
      400,
      "invalid_request",
      `prompt.images holds ${prompt.images.length} images: at most ${MAX_PROMPT_IMAGES} are taken.`,
    );
  return {
    text: prompt.text,
    images: prompt.images.map((image, index) => imageBlock(image, `prompt.images[${index}]`)),
  };
}

function imageBlock(value: unknown, where: string): ImageBlock {
  const bad = (why: string) => new ApiError(400, "invalid_request", `${where}: ${why}`);
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw bad("an image must be an object { data, dimension? }.");
  const image = value as { data?: unknown; mimeType?: unknown; dimension?: unknown };
  if (typeof image.data !== "string" || image.data === "")
    throw bad("data must be the image's bytes in base64.");
  const dataUrl = DATA_URL.exec(image.data);
  const base64 = image.data.slice(dataUrl?.[0].length ?? 0).replace(/\s+/g, "");
  if (!BASE64.test(base64) || base64.length % 4 === 1) throw bad("data is not valid base64.");
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length > MAX_PROMPT_IMAGE_BYTES)
    throw bad(
      `the image has ${bytes.length} bytes, more than the ${MAX_PROMPT_IMAGE_BYTES} an image may have.`,
    );
  const detected = sniffMediaType(bytes);
  if (!detected || !(IMAGE_MEDIA_TYPES as readonly string[]).includes(detected))
    throw bad(`data is not a PNG, JPEG, GIF or WebP image (${IMAGE_MEDIA_TYPES.join(", ")}).`);
  for (const given of [dataUrl?.[1], image.mimeType]) {
    if (given === undefined || given === "") continue;
    // `image/jpg` is a common misspelling of JPEG's type.
    const type =
      typeof given === "string" ? given.toLowerCase().replace(/^image\/jpg$/, "image/jpeg") : given;
    if (type !== detected) throw bad(`the image's bytes are ${detected}, not ${String(given)}.`);
  }
  if (image.dimension !== undefined && image.dimension !== null) checkDimension(image.dimension, where);
  // Decoded and encoded again: the model's API is sent canonical, padded base64.
  return { type: "image", source: { type: "base64", media_type: detected, data: bytes.toString("base64") } };
}

/** `dimension` describes the image (the model reads its size from the image itself), so it is only checked. */
function checkDimension(value: unknown, where: string): void {
  const dimension = value as { width?: unknown; height?: unknown };
  const positive = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n > 0;
  if (typeof value !== "object" || !positive(dimension.width) || !positive(dimension.height))
    throw new ApiError(
      400,
      "invalid_request",
      `${where}: dimension must be { width, height } in whole pixels above 0.`,
    );
}

/** The run's extras with the prompt's images, which are stored with the run (src/durable/run-extras.ts). */
export function withPromptImages(extras: RunExtras, prompt: RequestPrompt): RunExtras {
  return prompt.images.length > 0 ? { ...extras, images: prompt.images } : extras;
}
