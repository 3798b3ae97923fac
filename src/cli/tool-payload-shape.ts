/**
 * Which tool payloads stream-json prints (docs/events.md#tool-payloads). `full`, the default, is what
 * the reference CLI really prints (Read's `fileSize`, Write's and Edit's before/after contents, …):
 * its consumers read those fields, and the contract lets a CLI add fields that readers ignore (PM-5).
 * `contract` prints exactly the published contract's fields (PM-24, PM-25), for a reader that wants
 * nothing else.
 */
export type ToolPayloadShape = "contract" | "full";

export const TOOL_PAYLOAD_SHAPES: readonly ToolPayloadShape[] = ["contract", "full"];

/**
 * `--tool-payloads`, else CAIRN_TOOL_PAYLOADS, else `full`. `chosen` says the user picked one (a
 * format other than stream-json then says it has no effect); `note` names an environment value
 * that is neither shape.
 */
export function toolPayloadShape(
  flag: ToolPayloadShape | undefined,
  env: NodeJS.ProcessEnv,
): { shape: ToolPayloadShape; chosen: boolean; note?: string } {
  if (flag !== undefined) return { shape: flag, chosen: true };
  const value = env.CAIRN_TOOL_PAYLOADS?.trim();
  if (!value) return { shape: "full", chosen: false };
  if ((TOOL_PAYLOAD_SHAPES as readonly string[]).includes(value))
    return { shape: value as ToolPayloadShape, chosen: true };
  return {
    shape: "full",
    chosen: false,
    note: `CAIRN_TOOL_PAYLOADS=${value} is neither contract nor full; ignored (full, the default, is used).`,
  };
}
