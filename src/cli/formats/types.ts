import type { EngineEvent } from "../../engine/events.js";

/**
 * A print-mode output format: a pure projection from engine events to output text.
 * `project` returns the text to write for one event ("" for nothing); lines end with "\n".
 */
export type Projection = {
  project(event: EngineEvent): string;
};

export type OutputFormat = "text" | "json" | "stream-json";
