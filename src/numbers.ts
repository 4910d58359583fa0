// Numbers as people read them. Number.prototype.toLocaleString would do, but its first call
// loads the ICU data: about 45 ms, a quarter of a warm `weft check`.

/** 1234567 → "1,234,567" (as en-US writes it). */
export function withThousands(value: number): string {
  if (!Number.isFinite(value) || !Number.isInteger(value)) return String(value);
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return value < 0 ? `-${digits}` : digits;
}

/** (1, "preemption") → "1 preemption"; (1234, "execution") → "1,234 executions": one way to write numbers everywhere. */
export function counted(count: number, noun: string): string {
  return `${withThousands(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** An estimate, to two figures: 35,432 → "35,000"; 1,436,000 → "1.4 M"; 3.1 × 10⁸⁵ → "3.1e85". */
export function roughCount(value: number): string {
  if (!Number.isFinite(value)) return 'more than 1e308';
  if (value > 0 && value < 1) return '<1';
  if (value < 1e6) return withThousands(value < 100 ? Math.round(value) : Number(value.toPrecision(2)));
  if (value < 1e9) return `${Number((value / 1e6).toPrecision(2))} M`;
  return value.toPrecision(2).replace('e+', 'e');
}

const units: [limit: number, size: number, name: string][] = [
  [60, 1, 's'], [3_600, 60, 'min'], [48 * 3_600, 3_600, 'h'], [365 * 86_400, 86_400, 'days'], [1e4 * 31_557_600, 31_557_600, 'years'],
];

/** An estimated duration: "~40 s", "~12 min", "~3 h", "~5 days", "~1.2e78 years". */
export function roughDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 1) return '<1 s';
  for (const [limit, size, name] of units) if (seconds < limit) return `~${Math.round(seconds / size)} ${name}`;
  return `~${roughCount(seconds / 31_557_600)} years`;
}
