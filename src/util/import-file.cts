/**
 * import() of a module by URL, from a file Node's own loader compiles (tsc emits it as
 * dist/util/import-file.cjs): see import-apart.ts for why the CLI's bundle cannot do it itself.
 */
function importFile(href: string): Promise<unknown> {
  return import(href);
}

export = importFile;
