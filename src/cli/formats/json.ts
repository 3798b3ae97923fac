import type { EngineEvent } from "../../engine/events.js";
import { resultObject } from "./result-line.js";
import type { Projection } from "./types.js";

/** `json`: one result object on success, nothing at all on failure (PM-8, PM-13, PM-14). */
export function jsonProjection(): Projection {
  return {
    project(event: EngineEvent): string {
      if (event.type !== "run_end" || event.isError) return "";
      return `${JSON.stringify(resultObject(event))}\n`;
    },
  };
}
