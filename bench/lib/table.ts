/** Plain-text tables for the terminal (and for pasting into a README or an issue). */

export type Align = "left" | "right";

export interface Column {
  header: string;
  align?: Align;
}

export function table(columns: Column[], rows: string[][]): string {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const w = widths[i] ?? 0;
        return columns[i]?.align === "right" ? cell.padStart(w) : cell.padEnd(w);
      })
      .join("  ")
      .trimEnd();
  return [
    line(columns.map((c) => c.header)),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(r)),
  ].join("\n");
}

/** 12345.6 → "12 346" (a thin grouping that reads the same in every locale). */
export function int(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  return n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
}

export function pct(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return "–";
  return `${Math.round(ratio * 100)}%`;
}

export function times(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return "–";
  return `${ratio.toFixed(1)}×`;
}

export function mib(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return "–";
  return `${Math.round(bytes / 2 ** 20)}`;
}
