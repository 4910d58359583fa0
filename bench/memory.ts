// Flat memory: every strategy on a harness far too large to finish, run by the real CLI under
// a time budget, with its peak resident memory (the kernel's maximum RSS of the process).
//   npm run bench -- memory                      45 s per strategy
//   WEFT_BENCH_SECONDS=600 npm run bench -- memory   (a 10-minute run)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { strategyNames } from '../src/explore/strategies.js';
import { packageRoot } from '../src/paths.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const cli = join(packageRoot, 'dist', 'src', 'cli', 'main.js');
/** 5 threads x 10 locked increments and a shared atomic: no strategy finishes it */
const HARNESS = fixture('hbcache/five_threads.c');

export async function memoryBench(): Promise<void> {
  const seconds = Number(process.env.WEFT_BENCH_SECONDS ?? 45);
  const only = process.env.WEFT_BENCH_STRATEGIES?.split(',');
  const rows: (string | number)[][] = [];
  for (const strategy of only ?? strategyNames()) {
    const started = performance.now();
    const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, cli, 'check', HARNESS, '--strategy', strategy,
      '--max-bound', '5', '--time-budget-ms', String(seconds * 1000), '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const wall = (performance.now() - started) / 1000;
    const peakKiB = Number(run.stderr.trim().split('\n').pop());
    let executions: number | string = '-';
    let guarantee = `exit ${run.status}: ${run.stderr.trim().split('\n')[0] ?? ''}`;
    try {
      const test = (JSON.parse(run.stdout) as { tests: { executions: number; guarantee: string }[] }).tests[0]!;
      executions = test.executions;
      guarantee = test.guarantee;
    } catch {}
    rows.push([strategy, executions, wall, Math.round(peakKiB / 1024), guarantee]);
  }
  printTable(`memory: ${HARNESS.slice(packageRoot.length + 1)} at bound 5, ${seconds} s budget, one weft check process each`,
    ['strategy', 'executions', 'seconds', 'peak RSS (MB)', 'guarantee'], rows);
}
