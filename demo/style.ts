/** Terminal styling of the demo's output: ANSI colours when printing to a terminal, none otherwise. */

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
  red(s: string): string;
}

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, "g");

/** The text without its ANSI colour codes. */
export function plain(s: string): string {
  return s.replace(ANSI, "");
}

export function makeStyle(color: boolean): Style {
  const wrap = (code: string) => (s: string) => (color ? `${ESC}[${code}m${s}${ESC}[0m` : s);
  return {
    bold: wrap("1"),
    dim: wrap("2"),
    green: wrap("32"),
    yellow: wrap("33"),
    cyan: wrap("36"),
    magenta: wrap("35"),
    red: wrap("31"),
  };
}
