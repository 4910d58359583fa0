// Spin-heavy harnesses (issue 39): spinlocks with no yield, 3 threads x 3 increments,
// under the default options; a spin no thread ends (a livelock at once); and what
// reaching the step bound costs per step in a loop that is no spin.
import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const locks = ['spin/exchange_lock.c', 'spin/cas_lock.c', 'spin/flag_lock.c'];

export async function spinBench(): Promise<void> {
  const rows = [];
  for (const file of locks) {
    const cflags = '-DTHREADS=3 -DINCREMENTS=3';
    await checkAllInterleavings(fixture(file), { cflags, maxExecutions: 1 }); // warm: build + JIT
    const test = (await checkAllInterleavings(fixture(file), { cflags })).tests[0]!;
    rows.push([`${file} (3 threads x 3 increments)`, test.status, test.executions, test.guarantee ?? '', test.elapsedMs]);
  }
  const never = (await checkAllInterleavings(fixture('spin/never_set.c'))).tests[0]!;
  rows.push(['spin/never_set.c (a flag nobody sets)', never.bug?.kind ?? never.status, never.executions, '', never.elapsedMs]);
  printTable('spin: spinlocks and spins under default options', ['harness', 'verdict', 'executions', 'guarantee', 'ms'], rows);

  const limitRows = [];
  for (const maxSteps of [10_000, 50_000]) {
    const test = (await checkAllInterleavings(fixture('spin/counting_forever.c'), { maxSteps, strategy: 'dfs', maxBound: 0 })).tests[0]!;
    limitRows.push([maxSteps, test.bug?.kind ?? test.status, test.elapsedMs, (test.elapsedMs * 1000) / maxSteps]);
  }
  printTable('spin: reaching the step bound (a counting loop, one execution)', ['maxSteps', 'verdict', 'ms', 'µs per step'], limitRows);
}
