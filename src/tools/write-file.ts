import path from "node:path";
import { chmod, realpath, rename, stat, unlink, writeFile } from "../util/fs-async.js";
import { randomHex } from "../util/random-id.js";

/**
 * Writes a file for the Write and Edit tools. A file with more than one hard link is replaced by a
 * new file (a temporary file renamed over it) instead of written through: the other names of that
 * inode may be outside the workspace (a link the model or a checkout planted to `~/.bashrc`), and
 * the permission check saw only this one. The other names keep the old content. Symbolic links are
 * still followed (the checker resolves them), and other files are written in place, keeping their
 * inode, owner and whatever watches them.
 */
export async function writeTextFile(filePath: string, content: string): Promise<void> {
  const real = await realpath(filePath).catch(() => filePath);
  const info = await stat(real).catch(() => undefined);
  if (!info?.isFile() || info.nlink <= 1) {
    await writeFile(filePath, content, "utf8");
    return;
  }
  const temp = path.join(path.dirname(real), `.${path.basename(real)}.${randomHex(6)}.tmp`);
  try {
    await writeFile(temp, content, { encoding: "utf8", flag: "wx", mode: info.mode & 0o777 });
    await chmod(temp, info.mode & 0o7777);
    await rename(temp, real);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}
