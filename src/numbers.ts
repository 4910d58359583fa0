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
