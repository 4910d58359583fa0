// Spin-heavy harnesses (issue 39): spinlocks with no yield, 3 threads x 3 increments,
// under the default options, and the graph engine on them; a spin no thread ends (a livelock at once); and what
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
  for (const maxBound of [2, Number.POSITIVE_INFINITY]) {
    const ring = (await checkAllInterleavings(fixture('spin/ring_yields.c'), { maxBound })).tests[0]!;
    rows.push([`spin/ring_yields.c (2 slots, 3 items, yields; max bound ${maxBound})`, ring.status, ring.executions, ring.guarantee ?? '', ring.elapsedMs]);
  }
  const never = (await checkAllInterleavings(fixture('spin/never_set.c'))).tests[0]!;
  rows.push(['spin/never_set.c (a flag nobody sets)', never.bug?.kind ?? never.status, never.executions, '', never.elapsedMs]);
  printTable('spin: spinlocks and spins under default options', ['harness', 'verdict', 'executions', 'guarantee', 'ms'], rows);

  // the graph engine: a spinning thread waits for the write that ends its turn, bound by bound as the default, and unbounded against optimal (10 s each)
  const graphRows = [];
  for (const file of locks) {
    const cflags = '-DTHREADS=3 -DINCREMENTS=2';
    for (const [strategy, maxBound] of [['graph', 2], ['hbcache', 2], ['graph', Number.POSITIVE_INFINITY], ['optimal', Number.POSITIVE_INFINITY]] as const) {
      const test = (await checkAllInterleavings(fixture(file), { cflags, strategy, maxBound, timeBudgetMs: 10_000 })).tests[0]!;
      graphRows.push([`${file} (3 threads x 2 increments)`, strategy, maxBound, test.status, test.executions, test.complete ? 'yes' : 'no', test.elapsedMs]);
    }
  }
  printTable('spin: the graph engine on spinlocks', ['harness', 'strategy', 'max bound', 'verdict', 'executions', 'complete', 'ms'], graphRows);

  const limitRows = [];
  for (const maxSteps of [10_000, 50_000]) {
    const test = (await checkAllInterleavings(fixture('spin/counting_forever.c'), { maxSteps, strategy: 'dfs', maxBound: 0 })).tests[0]!;
    limitRows.push([maxSteps, test.bug?.kind ?? test.status, test.elapsedMs, (test.elapsedMs * 1000) / maxSteps]);
  }
  printTable('spin: reaching the step bound (a counting loop, one execution)', ['maxSteps', 'verdict', 'ms', 'µs per step'], limitRows);
}
