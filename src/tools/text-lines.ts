/** Number of lines in a text: a final newline ends the last line rather than starting a new one. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count += 1;
  return text.endsWith("\n") ? count - 1 : count;
}
