import { type ReportOptions, type ReportSource, renderReport as render } from "../report/lazy.js";
import { sdkEnvironment } from "./options.js";

/**
 * The SDK's `renderReport` (docs/report.md): a session id is looked up in the session store of
 * `source.env`, else of the process's environment (the SDK's one read of it).
 */
export function renderReport(source: ReportSource, options: ReportOptions = {}): Promise<string> {
  const resolved = "sessionId" in source ? { ...source, env: sdkEnvironment(source.env) } : source;
  return render(resolved, options);
}
