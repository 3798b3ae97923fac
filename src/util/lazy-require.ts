import { createRequire } from "node:module";

/**
 * A `require` for the module at `url`, made on its first call: `createRequire` costs about 0.2 ms,
 * which a module made at load paid at every CLI start even when it never required anything.
 */
export function lazyRequire(url: string): (id: string) => unknown {
  let made: NodeJS.Require | undefined;
  return (id) => {
    made ??= createRequire(url);
    return made(id);
  };
}
