import type { ToolDeclaration } from "../../tools/types.js";
import { jsonProjection } from "./json.js";
import { streamJsonProjection } from "./stream-json.js";
import { textProjection } from "./text.js";
import { payloadsOf } from "./tool-payloads.js";
import type { OutputFormat, Projection } from "./types.js";

/**
 * The projection for an output format; partial output only exists for stream-json (PM-28). `tools`
 * are the run's tools: stream-json shows each call by the payload shape its tool declares.
 */
export function projectionFor(
  format: OutputFormat,
  streamPartialOutput: boolean,
  tools: readonly ToolDeclaration[],
  reference: { fullPayloads?: boolean; thinking?: boolean } = {},
): Projection {
  switch (format) {
    case "json":
      return jsonProjection();
    case "stream-json":
      return streamJsonProjection({
        partial: streamPartialOutput,
        payloads: payloadsOf(tools),
        ...reference,
      });
    case "text":
      return textProjection();
  }
}
