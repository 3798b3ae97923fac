import path from "node:path";
import { rename, rm, writeFile } from "../util/fs-async.js";

/**
 * Writes a report next to its final name, then renames it into place: a reader (a CI step, a
 * browser) never finds half a report, and a failed write leaves what was there.
 */
export async function writeReportFile(file: string, html: string): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, html, "utf8");
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw new Error(`cannot write the report ${file}: ${(error as Error).message}`);
  }
}
