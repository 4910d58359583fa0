// Flat memory: every strategy on a harness far too large to finish, run by the real CLI under
// a time budget, with its peak resident memory (the kernel's maximum RSS of the process).
//   npm run bench -- memory                      45 s per strategy
//   WEFT_BENCH_SECONDS=600 npm run bench -- memory   (a 10-minute run)
import { strategyChoices } from '../src/explore/strategies.js';
import { packageRoot } from '../src/paths.js';
import { fixture } from './fixtures.js';
import { measuredCheck } from './measured-cli.js';
import { printTable } from './table.js';

/** 5 threads x 10 locked increments and a shared atomic: no strategy finishes it */
const HARNESS = fixture('hbcache/five_threads.c');

export async function memoryBench(): Promise<void> {
  const seconds = Number(process.env.WEFT_BENCH_SECONDS ?? 45);
  const only = process.env.WEFT_BENCH_STRATEGIES?.split(',');
  const rows: (string | number)[][] = [];
  for (const strategy of only ?? strategyChoices()) {
    const run = measuredCheck(HARNESS, ['--strategy', strategy, '--max-bound', '5', '--time-budget-ms', String(seconds * 1000)]);
    rows.push([strategy, run.executions, run.seconds, run.peakMiB, run.guarantee]);
  }
  printTable(`memory: ${HARNESS.slice(packageRoot.length + 1)} at bound 5, ${seconds} s budget, one weft check process each`,
    ['strategy', 'executions', 'seconds', 'peak RSS (MB)', 'guarantee'], rows);
}
