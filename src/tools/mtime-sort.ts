import { stat } from "../util/fs-async.js";

/** Most recently modified first (what the model most likely wants); ties in path order, for stable output. */
export async function sortNewestFirst(files: string[]): Promise<string[]> {
  const withTimes: { file: string; mtime: number }[] = [];
  const BATCH = 64;
  for (let i = 0; i < files.length; i += BATCH) {
    const batch = files.slice(i, i + BATCH);
    const times = await Promise.all(
      batch.map((file) =>
        stat(file).then(
          (s) => s.mtimeMs,
          () => 0,
        ),
      ),
    );
    batch.forEach((file, j) => {
      withTimes.push({ file, mtime: times[j]! });
    });
  }
  withTimes.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return withTimes.map((entry) => entry.file);
}
