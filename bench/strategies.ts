// Strategies side by side: executions and time of dfs, bpor, hbcache and optimal on the
// same harnesses, bound by bound (optimal ignores bounds: one complete exploration).
import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const harnesses = [
  { file: 'por/locked_increments.c', cflags: '-DTHREADS=3 -DINCREMENTS=2', label: 'locked increments 3x2' },
  { file: 'por/indexer.c', cflags: '-DTHREADS=3', label: 'indexer, 3 threads' },
  { file: 'por/readers_writer.c', cflags: '-DREADERS=4', label: 'readers/writer, 4 readers' },
  { file: 'primitives/thread_pool.c', cflags: '', label: 'thread pool, 2 workers' },
];

const BOUNDS = [0, 1, 2, 3, 4];
const BUDGET = { maxExecutions: 2_000_000, timeBudgetMs: 60_000 };

export async function strategiesBench(): Promise<void> {
  const rows = [];
  for (const harness of harnesses) {
    const path = fixture(harness.file);
    for (const bound of BOUNDS) {
      const row: (string | number)[] = [harness.label, bound];
      for (const strategy of ['dfs', 'bpor', 'hbcache']) {
        const test = (await checkAllInterleavings(path, { strategy, maxBound: bound, cflags: harness.cflags, ...BUDGET })).tests[0]!;
        // runs cut short as redundant cost time too: shown beside the executions
        row.push(test.redundantRuns > 0 ? `${test.executions} (+${test.redundantRuns} cut)` : test.executions, `${test.elapsedMs.toFixed(1)} ms`);
      }
      rows.push(row);
    }
    const optimal = (await checkAllInterleavings(path, { strategy: 'optimal', cflags: harness.cflags, ...BUDGET })).tests[0]!;
    rows.push([harness.label, 'all (optimal)', '', '', optimal.executions, `${optimal.elapsedMs.toFixed(1)} ms`, '', '']);
  }
  printTable('strategies: executions and time per bound (bpor, hbcache <= dfs at every bound; optimal: complete, one per Mazurkiewicz trace)',
    ['harness', 'bound', 'dfs executions', 'dfs time', 'bpor / optimal executions', 'time', 'hbcache executions', 'hbcache time'], rows);

  const big = (await checkAllInterleavings(fixture('por/locked_increments.c'), { strategy: 'optimal', cflags: '-DTHREADS=4 -DINCREMENTS=3' })).tests[0]!;
  printTable('optimal: 4 threads x 3 locked increments (expected 12!/(3!)^4 = 369,600)',
    ['executions', 'seconds', 'executions/s'], [[big.executions, big.elapsedMs / 1000, Math.round(big.executions / (big.elapsedMs / 1000))]]);
}
