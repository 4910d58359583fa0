// bpor and graph on 1, 2, … worker processes (--workers): wall time and speedup on searches that
// finish (the executions must be the same for every worker count), executions per second
// on one that cannot finish in its budget. Each run is a real `weft check` process; each
// cell is the median of RUNS runs (a shared 2-core machine varies by a third run to run).
import { availableParallelism } from 'node:os';

import { withThousands } from '../src/numbers.js';
import { fixture } from './fixtures.js';
import { measuredCheck } from './measured-cli.js';
import { printTable } from './table.js';

const harnesses = [
  { strategy: 'bpor', file: 'por/locked_increments.c', args: ['--cflags', '-DTHREADS=3 -DINCREMENTS=3', '--mode', 'sc', '--max-bound', '4'], label: '3 × 3 locked increments, bound 4' },
  { strategy: 'bpor', file: 'seeds/work_stealing_queue.c', args: ['--cflags', '-DSIZE=4', '--max-bound', '5'], label: 'work-stealing queue (size 4), bound 5' },
  { strategy: 'bpor', file: 'por/readers_writer.c', args: ['--cflags', '-DREADERS=6', '--max-bound', '3', '--time-budget-ms', '20000'], label: '6 readers + 1 writer, bound 3, 20 s budget (cannot finish)' },
  { strategy: 'graph', file: 'por/locked_increments.c', args: ['--cflags', '-DTHREADS=4 -DINCREMENTS=3', '--max-bound', 'unbounded'], label: '4 × 3 locked increments, unbounded' },
  { strategy: 'graph', file: 'por/locked_increments.c', args: ['--cflags', '-DTHREADS=4 -DINCREMENTS=3', '--max-bound', '2'], label: '4 × 3 locked increments, bound 2' },
];

const RUNS = 3;

export async function parallelBench(): Promise<void> {
  const counts = [...new Set([1, 2, availableParallelism()])].filter((workers) => workers <= availableParallelism());
  const rows: (string | number)[][] = [];
  for (const harness of harnesses) {
    let alone = 0;
    for (const workers of counts) {
      const runs = Array.from({ length: RUNS }, () => measuredCheck(fixture(harness.file), ['--strategy', harness.strategy, '--workers', String(workers), ...harness.args]));
      // the median by executions per second (by time, where the executions are the same)
      const rate = (run: (typeof runs)[number]) => (typeof run.executions === 'number' ? run.executions / run.seconds : 0);
      const run = runs.sort((a, b) => rate(a) - rate(b))[Math.floor(RUNS / 2)]!;
      if (workers === 1) alone = run.seconds;
      const perSecond = typeof run.executions === 'number' ? withThousands(Math.round(run.executions / run.seconds)) : '-';
      rows.push([harness.label, harness.strategy, workers, run.executions, run.seconds.toFixed(2), (alone / run.seconds).toFixed(2), perSecond, run.peakMiB]);
    }
  }
  printTable(`bpor and graph on worker processes (${availableParallelism()} cores; median of ${RUNS} runs; peak RSS: the weft process alone)`,
    ['harness', 'strategy', 'workers', 'executions', 'seconds', 'speedup', 'executions/s', 'peak RSS (MB)'], rows);
}
