import type { EngineEvent } from "../../engine/events.js";

/**
 * A print-mode output format: a pure projection from engine events to output text. `project`
 * returns the text to write for one event ("" for nothing); lines end with "\n". Its result depends
 * only on the events given so far (no clock, no I/O), which is what the golden tests rely on.
 */
export type Projection = {
  project(event: EngineEvent): string;
};

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
