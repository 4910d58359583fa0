// Loops in a counterexample: a stretch of rows that comes round again and again back to
// back (a spin, a livelock's cycle) is shown once, with how often it repeated, instead of
// hundreds of identical rows.

/** the longest loop, in rows, looked for */
const MAX_PERIOD = 64;
/** a stretch is folded from this many copies on */
const MIN_COPIES = 3;

/** A stretch of `period` rows that comes `copies` times back to back from row `start`. */
interface Loop {
  start: number;
  period: number;
  copies: number;
}

/**
 * The loops in `rows` (rows equal by `key`): each run of at least MIN_COPIES back-to-back
 * copies of a stretch, the longest cover first, in order. The last row (the failure's) is in none.
 */
function findLoops<T>(rows: readonly T[], key: (row: T) => string): Loop[] {
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
 * `rows` with every loop (findLoops) in its place as `once(iteration, more)` makes it from
 * one iteration of the loop's rows and the number of copies left out.
 */
export function foldRepeats<T, U = T>(rows: readonly T[], key: (row: T) => string, once: (iteration: readonly T[], more: number) => readonly (T | U)[]): (T | U)[] {
  const folded: (T | U)[] = [];
  let next = 0;
  for (const { start, period, copies } of findLoops(rows, key)) {
    folded.push(...rows.slice(next, start), ...once(rows.slice(start, start + period), copies - 1));
    next = start + period * copies;
  }
  folded.push(...rows.slice(next));
  return folded;
}
