/** See big-session.mjs: a big session's transcript, for the report's test and bench. */
export function writeBigSession(
  file: string,
  options?: { turns?: number; outputBytes?: number; sessionId?: string },
): Promise<{ events: number; outputBytes: number; sessionId: string }>;
