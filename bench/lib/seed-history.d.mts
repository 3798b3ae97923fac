/** Types of seed-history.mjs for the TypeScript tests (test/bench-seed-history.test.ts). */
export function findTranscript(home: string, prompt: string, answer: string): string;
export function repeatTurn(
  text: string,
  options: { prompt: string; answer: string; copies: number; keep: string[] },
): string;
export function lengthenTranscript(
  home: string,
  options: { prompt: string; answer: string; messages: number },
): string;
