import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * A small tree exercising what Grep and Glob must skip: .gitignore rules (root and nested),
 * .git, node_modules and binary files. Each file gets its own mtime, older down the list, so
 * "newest first" orders are fixed.
 */
export const FIXTURE: [string, string | Buffer][] = [
  [".gitignore", "ignored/\n*.log\n"],
  ["src/a.ts", "export const foo = 1;\n// TODO: foo bar\nfunction Foo() {}\n"],
  ["src/b.js", "const foo = 2;\nconst bar = 3;\nconst baz = 4;\nconst qux = 5;\nlet foo2 = 6;\n"],
  ["src/nested/.gitignore", "secret.ts\n"],
  ["src/nested/secret.ts", "foo secret\n"],
  ["src/nested/c.ts", "no match here\nfoo at line 2\n"],
  ["ignored/x.ts", "foo ignored\n"],
  ["debug.log", "foo log\n"],
  ["node_modules/pkg/index.js", "foo dep\n"],
  [".git/config", "foo git\n"],
  [".hidden/h.ts", "foo hidden\n"],
  ["bin.dat", Buffer.from("foo\u0000binary\n")],
  ["multi.txt", "start\nmiddle\nend\nstart\nmiddle\n"],
  ["README.md", "# Foo\nNothing to see.\n"],
];

export async function writeFixture(dir: string): Promise<void> {
  const now = Date.now() / 1000;
  let age = 0;
  for (const [rel, content] of FIXTURE) {
    const file = path.join(dir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    age += 100;
    await utimes(file, now - age, now - age);
  }
}
