// Executions per behaviour class, per strategy, on the harnesses whose class counts are
// known: `optimal` runs one execution per Mazurkiewicz class of the whole program, and
// `hbcache` one per happens-before class within the bound, so a ratio of 1.00 to the
// right one of them is optimal. Each run is a real `weft check` process (wall time, peak RSS).
import { createStrategy, defaultStrategy, strategyChoices } from '../src/explore/strategies.js';
import { fixture } from './fixtures.js';
import { type MeasuredCheck, measuredCheck } from './measured-cli.js';
import { printTable } from './table.js';

const harnesses = [
  { file: 'por/readers_writer.c', cflags: '-DREADERS=6', bound: '3', label: '6 readers + 1 writer, bound 3' },
  { file: 'seeds/work_stealing_queue.c', cflags: '-DSIZE=4', bound: '4', label: 'work-stealing queue (size 4), bound 4' },
  { file: 'por/locked_increments.c', cflags: '-DTHREADS=4 -DINCREMENTS=3', bound: '1', label: '4 × 3 locked increments, bound 1' },
  { file: 'por/locked_increments.c', cflags: '-DTHREADS=4 -DINCREMENTS=3', bound: '2', label: '4 × 3 locked increments, bound 2' },
  { file: 'por/locked_increments.c', cflags: '-DTHREADS=4 -DINCREMENTS=3', bound: 'unbounded', label: '4 × 3 locked increments, unbounded' },
];
const BUDGET_MS = 60_000;
/** the samplers never finish: they have no executions per class */
const exhaustive = (name: string) => name === defaultStrategy || createStrategy(name, { maxBound: 0 }).exhaustive !== false;

export async function classesBench(): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const harness of harnesses) {
    const runs = new Map<string, MeasuredCheck>();
    for (const strategy of strategyChoices().filter(exhaustive))
      runs.set(strategy, measuredCheck(fixture(harness.file), ['--strategy', strategy, '--cflags', harness.cflags, '--max-bound', harness.bound, '--time-budget-ms', String(BUDGET_MS)]));
    const classes = runs.get('optimal')!.executions;
    const withinBound = harness.bound === 'unbounded' ? classes : runs.get('hbcache')!.executions;
    for (const [strategy, run] of runs) {
      const finished = !run.guarantee.startsWith('budget');
      const per = (count: number | string) => typeof count === 'number' && typeof run.executions === 'number' && finished ? (run.executions / count).toFixed(2) : '-';
      const runsInAll = typeof run.executions === 'number' && typeof run.redundantRuns === 'number' ? run.executions + run.redundantRuns : '-';
      const runsPer = typeof runsInAll === 'number' && typeof withinBound === 'number' && finished ? (runsInAll / withinBound).toFixed(2) : '-';
      rows.push([harness.label, strategy, run.strategy, finished ? run.executions : `>${run.executions}`, run.seconds, run.peakMiB, per(withinBound), per(classes), runsPer]);
    }
  }
  printTable(`executions per class (${BUDGET_MS / 1000} s budget per run; classes: hbcache's count within the bound, optimal's of the whole program)`,
    ['harness', 'strategy', 'result from', 'executions', 'seconds', 'peak RSS (MB)', 'per class within the bound', 'per class of the program', 'runs in all (redundant, past the bound) per class within the bound'], rows);
}
