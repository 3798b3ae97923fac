import type { RunEndEvent } from "../engine/events.js";
import { addCost, addUsage, emptyUsage, type Usage } from "../engine/messages.js";

/**
 * What a session's runs have cost so far, in all and per model. Results report these totals (the
 * convention: `total_cost_usd` and `modelUsage` are the session's so far; read the latest, never
 * sum them), and a session budget gives each turn what the earlier ones left.
 */
export class SpendTotals {
  /** Undefined once a run's cost was unknown (a price missing from the catalog). */
  private spentUsd: number | undefined = 0;
  private readonly byModel = new Map<string, { usage: Usage; costUsd: number | undefined }>();

  add(end: RunEndEvent): void {
    this.spentUsd = addCost(this.spentUsd, end.totalCostUsd ?? undefined);
    for (const [model, usage] of Object.entries(end.modelUsage)) {
      const spent = this.byModel.get(model) ?? { usage: emptyUsage(), costUsd: 0 };
      spent.usage = addUsage(spent.usage, usage);
      spent.costUsd = addCost(spent.costUsd, end.modelCostUsd[model] ?? undefined);
      this.byModel.set(model, spent);
    }
  }

  /** The session's cost so far (undefined when unknown). */
  get costUsd(): number | undefined {
    return this.spentUsd;
  }

  /** What a session budget leaves for the next turn (undefined: no budget, or the spend is unknown). */
  budgetLeft(budgetUsd: number | undefined): number | undefined {
    if (budgetUsd === undefined || this.spentUsd === undefined) return undefined;
    return Math.max(0, budgetUsd - this.spentUsd);
  }

  /** A run's end with the session's totals in place of its own (`usage` stays the run's). */
  withTotals<T extends Pick<RunEndEvent, "totalCostUsd" | "modelUsage" | "modelCostUsd">>(end: T): T {
    const models = [...this.byModel];
    return {
      ...end,
      totalCostUsd: this.spentUsd ?? null,
      modelUsage: Object.fromEntries(models.map(([model, spent]) => [model, spent.usage])),
      modelCostUsd: Object.fromEntries(models.map(([model, spent]) => [model, spent.costUsd ?? null])),
    };
  }
}
