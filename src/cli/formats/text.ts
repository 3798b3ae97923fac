import type { EngineEvent } from "../../engine/events.js";
import type { Projection } from "./types.js";

/** `text`: only the final assistant message, the text after the last tool call (PM-7). */
export function textProjection(): Projection {
  return {
    project(event: EngineEvent): string {
      if (event.type !== "run_end" || event.isError) return "";
      const text = event.finalText;
      if (text === "") return "";
      return text.endsWith("\n") ? text : `${text}\n`;
    },
  };
}
