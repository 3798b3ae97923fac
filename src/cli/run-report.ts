import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Session } from "../session/session.js";
import { importApart } from "../util/import-apart.js";
import { writeError } from "./errors.js";

/**
 * `--report <file>`: the session's HTML report (docs/report.md), written when the run is over, also
 * when it failed or was interrupted, so CI can attach it. The report's code loads only here, apart
 * from the CLI's bundle (importApart).
 * Returns false (having said why on stderr) when no report could be written.
 */
export async function writeRunReport(session: Session, file: string): Promise<boolean> {
  const transcript = session.transcriptPath(session.id);
  if (transcript === "" || !existsSync(transcript)) {
    writeError(`--report ${file}: the run wrote no transcript (it did not start), so there is no report.`);
    return false;
  }
  try {
    const [{ renderReport }, { writeReportFile }] = await Promise.all([
      importApart<typeof import("../report/render-report.js")>(
        new URL("../report/render-report.js", import.meta.url),
        import.meta.url,
      ),
      importApart<typeof import("../report/write-report-file.js")>(
        new URL("../report/write-report-file.js", import.meta.url),
        import.meta.url,
      ),
    ]);
    await writeReportFile(resolve(file), await renderReport({ file: transcript }));
    return true;
  } catch (error) {
    writeError(`--report ${file}: ${(error as Error).message}`);
    return false;
  }
}
