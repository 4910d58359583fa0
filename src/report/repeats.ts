// Loops in a counterexample: a stretch of rows that comes round again and again back to
// back (a spin, a livelock's cycle) is shown once, with how often it repeated, instead of
// hundreds of identical rows.

/** the longest loop, in rows, looked for */
const MAX_PERIOD = 64;
/** a stretch is folded from this many copies on */
const MIN_COPIES = 3;

/** A stretch of `period` rows that comes `copies` times back to back from row `start`. */
export interface Loop {
  start: number;
  period: number;
  copies: number;
}

/**
 * The loops in `rows` (rows equal by `key`): each run of at least MIN_COPIES back-to-back
 * copies of a stretch, the longest cover first, in order. The last row (the failure's) is in none.
 */
export function findLoops<T>(rows: readonly T[], key: (row: T) => string): Loop[] {
  const keys = rows.map(key);
  const end = rows.length - 1;
  const copiesAt = (start: number, period: number): number => {
    let copies = 1;
    for (let next = start + period; next + period <= end; next += period, copies++)
      for (let j = 0; j < period; j++) if (keys[start + j] !== keys[next + j]) return copies;
    return copies;
  };
  const loops: Loop[] = [];
  for (let start = 0; start < rows.length; ) {
    let period = 0;
    let copies = 0;
    for (let p = 1; p <= MAX_PERIOD && start + MIN_COPIES * p <= end; p++) {
      const found = copiesAt(start, p);
      if (found >= MIN_COPIES && found * p > copies * period) [period, copies] = [p, found];
    }
    if (period === 0) {
      start++;
      continue;
    }
    loops.push({ start, period, copies });
    start += period * copies;
  }
  return loops;
}

/**
 * `rows` with every loop (findLoops) kept once and followed by `fold(period, more, first)`,
 * `more` the copies left out.
 */
export function foldRepeats<T>(rows: readonly T[], key: (row: T) => string, fold: (period: number, more: number, first: T) => T): T[] {
  const folded: T[] = [];
  let next = 0;
  for (const { start, period, copies } of findLoops(rows, key)) {
    folded.push(...rows.slice(next, start + period), fold(period, copies - 1, rows[start]!));
    next = start + period * copies;
  }
  folded.push(...rows.slice(next));
  return folded;
}
