/**
 * SGR styles for the interactive mode's lines; none at all with NO_COLOR (https://no-color.org) or
 * on a terminal that cannot show them (TERM=dumb never gets here: line mode).
 */
export type Styles = {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  inverse(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  strike(text: string): string;
  magenta(text: string): string;
  blue(text: string): string;
  /** Styles are on (no NO_COLOR): what highlighting and word marks need to show anything. */
  readonly on: boolean;
};

export function stylesFor(env: NodeJS.ProcessEnv): Styles {
  const on = env.NO_COLOR === undefined || env.NO_COLOR === "";
  const sgr = (open: string, close: string) => (text: string) =>
    on && text !== "" ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    dim: sgr("2", "22"),
    bold: sgr("1", "22"),
    red: sgr("31", "39"),
    green: sgr("32", "39"),
    yellow: sgr("33", "39"),
    cyan: sgr("36", "39"),
    inverse: sgr("7", "27"),
    italic: sgr("3", "23"),
    underline: sgr("4", "24"),
    strike: sgr("9", "29"),
    magenta: sgr("35", "39"),
    blue: sgr("34", "39"),
    on,
  };
}
