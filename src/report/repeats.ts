// Loops in a counterexample: a stretch of rows that comes round again and again back to
// back (a spin, a livelock's cycle) is shown once, with how often it repeated, instead of
// hundreds of identical rows.

/** the longest loop, in rows, looked for */
const MAX_PERIOD = 64;
/** a stretch is folded from this many copies on */
const MIN_COPIES = 3;

/**
 * `rows` with every run of at least MIN_COPIES back-to-back copies of a stretch (rows
 * equal by `key`) kept once and followed by `fold(period, more)`, `more` the copies left
 * out. The last row (the failure's) is never folded away.
 */
export function foldRepeats<T>(rows: readonly T[], key: (row: T) => string, fold: (period: number, more: number, first: T) => T): T[] {
  const keys = rows.map(key);
  const end = rows.length - 1;
  const copiesAt = (start: number, period: number): number => {
    let copies = 1;
    for (let next = start + period; next + period <= end; next += period, copies++)
      for (let j = 0; j < period; j++) if (keys[start + j] !== keys[next + j]) return copies;
    return copies;
  };
  const folded: T[] = [];
  for (let start = 0; start < rows.length; ) {
    let period = 0;
    let copies = 0;
    for (let p = 1; p <= MAX_PERIOD && start + MIN_COPIES * p <= end; p++) {
      const found = copiesAt(start, p);
      if (found >= MIN_COPIES && found * p > copies * period) [period, copies] = [p, found];
    }
    if (period === 0) {
      folded.push(rows[start]!);
      start++;
      continue;
    }
    folded.push(...rows.slice(start, start + period), fold(period, copies - 1, rows[start]!));
    start += period * copies;
  }
  return folded;
}
