import type { LoadedConfig } from "../config/load.js";
import { ConfigError } from "../providers/types.js";
import { domainPatternProblem } from "../sandbox/domain-policy.js";

/**
 * The config files' `sandbox.network` domain lists (docs/config.md), checked: a pattern that is not
 * a domain pattern is an error naming the file and the entry (CLI exit 2), as a malformed rule is.
 */
export function configuredSandboxDomains(config: Pick<LoadedConfig, "sandboxDomains">): {
  allowed: string[];
  denied: string[];
} {
  const checked = (entries: LoadedConfig["sandboxDomains"]["allowed"]) =>
    entries.map(({ pattern, source }) => {
      const problem = domainPatternProblem(pattern);
      if (problem) throw new ConfigError(`${source}: ${problem}`);
      return pattern;
    });
  return { allowed: checked(config.sandboxDomains.allowed), denied: checked(config.sandboxDomains.denied) };
}
