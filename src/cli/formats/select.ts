import { jsonProjection } from "./json.js";
import { streamJsonProjection } from "./stream-json.js";
import { textProjection } from "./text.js";
import type { OutputFormat, Projection } from "./types.js";

/** The projection for an output format; partial output only exists for stream-json (PM-28). */
export function projectionFor(format: OutputFormat, streamPartialOutput: boolean): Projection {
  switch (format) {
    case "json":
      return jsonProjection();
    case "stream-json":
      return streamJsonProjection({ partial: streamPartialOutput });
    case "text":
      return textProjection();
  }
}
