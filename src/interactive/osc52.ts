/**
 * OSC 52: the terminal puts the text on the system clipboard (xterm, iTerm2, kitty, WezTerm, Windows
 * Terminal, and over ssh). Inside tmux the sequence is passed through to the outer terminal
 * (tmux's `set-clipboard` option decides whether tmux keeps it too); GNU screen likewise.
 */
export function osc52(text: string, env: NodeJS.ProcessEnv): string {
  const sequence = `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
  if (env.TMUX) return `\x1bPtmux;${sequence.replace(/\x1b/g, "\x1b\x1b")}\x1b\\`;
  if (env.STY) return `\x1bP${sequence}\x1b\\`;
  return sequence;
}
