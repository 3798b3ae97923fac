/**
 * The candidates a mistyped name was probably meant to be, closest first: those within a few edits
 * (about one in three characters, at least two) and those that contain the name or start it
 * (`opus-5` → `claude-opus-5`, `claude-opus-5-5`). At most `limit`.
 */
export function closeMatches(name: string, candidates: Iterable<string>, limit = 5): string[] {
  const typed = name.toLowerCase();
  const budget = Math.max(2, Math.floor(typed.length / 3));
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const lower = candidate.toLowerCase();
    const distance = editDistance(typed, lower);
    // Containment ranks after every near-typo: it is a weaker guess than a one-letter slip.
    const contains = typed.length >= 2 && (lower.includes(typed) || typed.startsWith(lower));
    if (distance <= budget) scored.push({ candidate, score: distance });
    else if (contains) scored.push({ candidate, score: budget + 1 + lower.length - typed.length });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((entry) => entry.candidate);
}

/** Levenshtein distance (insertions, deletions, substitutions), two rows of memory. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
