// Harnesses with more threads than one word of a thread set holds (up to 256): what the
// default and the other strategies find or complete, how fast, in how much memory. Each
// run is a real `weft check` process.
import { fixture } from './fixtures.js';
import { measuredCheck } from './measured-cli.js';
import { printTable } from './table.js';

const BUDGET_MS = 20_000;

const runs = [
  { label: '161 threads, a data race between T100 and T150', file: 'threads/race_far_threads.c', args: [] },
  { label: '101 threads, relaxed message passing T40 -> T90 (a race)', file: 'threads/far_message_passing.c', args: ['--test', 'relaxed_races'] },
  { label: '101 threads, release/acquire message passing T40 -> T90', file: 'threads/far_message_passing.c', args: ['--test', 'release_acquire'] },
  { label: '201 threads, locked increments', file: 'threads/many_threads.c', args: [] },
  { label: '201 threads, locked increments', file: 'threads/many_threads.c', args: ['--bound', 'delay', '--max-bound', '1'] },
  { label: '41 threads, 40 adding 1 to one atomic, the result unused', file: 'por/unused_adds.c', args: ['--test', 'counter_bumped_by_every_thread'] },
  { label: '256 threads, 255 adding 1 to one atomic, the result unused', file: 'por/unused_adds.c', args: ['--test', 'counter_bumped_by_every_thread', '--cflags', '-DTHREADS=255'] },
  { label: '41 or 3 threads (weft_choose), locked sums', file: 'threads/varying_threads.c', args: ['--max-bound', '1'] },
];

export async function threadsBench(): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const run of runs) {
    const measured = measuredCheck(fixture(run.file), [...run.args, '--time-budget-ms', String(BUDGET_MS)]);
    rows.push([run.label, run.args.join(' ') || '(defaults)', measured.strategy, measured.executions, measured.seconds, measured.peakMiB, measured.guarantee]);
  }
  printTable(`many threads (${BUDGET_MS / 1000} s budget per run)`, ['harness', 'options', 'result from', 'executions', 'seconds', 'peak RSS (MB)', 'guarantee'], rows);
}
