import type { RateLimitReport } from "../engine/provider.js";

/** The limits the Anthropic API reports, as `anthropic-ratelimit-<limit>-{limit,remaining,reset}`. */
const LIMITS = ["requests", "tokens", "input-tokens", "output-tokens"] as const;

/** Less than this share left is a warning. */
const WARNING_UTILIZATION = 0.9;

/**
 * The most used of the limits a response's `anthropic-ratelimit-*` headers report; undefined when it
 * reports none (most gateways and compatible servers).
 */
export function anthropicRateLimit(headers: Headers): RateLimitReport | undefined {
  let worst: RateLimitReport | undefined;
  for (const limit of LIMITS) {
    const total = Number(headers.get(`anthropic-ratelimit-${limit}-limit`));
    const remaining = Number(headers.get(`anthropic-ratelimit-${limit}-remaining`));
    if (!(total > 0) || !Number.isFinite(remaining)) continue;
    const utilization = Math.min(1, Math.max(0, 1 - remaining / total));
    if (worst && worst.utilization >= utilization) continue;
    const reset = Date.parse(headers.get(`anthropic-ratelimit-${limit}-reset`) ?? "");
    worst = {
      status:
        remaining <= 0 ? "rejected" : utilization >= WARNING_UTILIZATION ? "allowed_warning" : "allowed",
      limit,
      utilization,
      ...(Number.isFinite(reset) ? { resetsAt: Math.floor(reset / 1000) } : {}),
    };
  }
  return worst;
}
