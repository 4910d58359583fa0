// Plain-text tables for the benchmark output.

export type Cell = string | number;

export function printTable(title: string, header: string[], rows: Cell[][]): void {
  const text = rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of text) console.log(line(row));
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 2 : 0 });
}
