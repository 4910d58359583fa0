// Runs to the first bug, on harnesses too big to exhaust (fixtures/random/) and on the seed
// papers' buggy programs (fixtures/seeds/): mean and worst over 20 seeds for random and pct,
// and one number each for delay-bounded dfs (deterministic) and the default strategy
// (with a time budget; its PCT turns start by the clock).
import { checkAllInterleavings } from '../src/index.js';
import type { CheckOptions, TestResult } from '../src/check.js';
import { defaults } from '../src/options.js';
import { fixture } from './fixtures.js';
import { type Cell, printTable } from './table.js';

/** the seeds' harnesses get the step limit their test gives them (test/seeds.test.ts) */
const seedOptions: CheckOptions = { maxSteps: 5000 };

const harnesses: { file: string; label: string; options?: CheckOptions }[] = [
  { file: 'random/torn_pair.c', label: 'torn pair, 12 writers + checker (1 preemption)' },
  { file: 'random/check_then_act.c', label: 'check then act, 7 threads (depth 2)' },
  { file: 'random/relay.c', label: 'relay, 7 threads (depth 3)' },
  { file: 'seeds/bug_inspect.c', label: 'SCALE: Bug Inspect', options: seedOptions },
  { file: 'seeds/producer_consumer.c', label: 'SCALE: producer-consumer', options: seedOptions },
  { file: 'seeds/nonblocking_queue.c', label: 'SCALE: non-blocking queue', options: seedOptions },
  { file: 'seeds/figure1.c', label: 'Musuvathi-Qadeer Figure 1', options: seedOptions },
];

const SEEDS = 20;
/** runs per seed before a sampler counts as missing the bug */
const SAMPLE_CAP = 100_000;
/** the deterministic searches: how long before they count as missing it */
const SEARCH_BUDGET_MS = 30_000;

export async function randomBench(): Promise<void> {
  const rows: Cell[][] = [];
  for (const harness of harnesses) {
    const path = fixture(harness.file);
    const options = harness.options ?? {};
    for (const strategy of ['random', 'pct']) {
      const runs: number[] = [];
      let missed = 0;
      let milliseconds = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const test = (await checkAllInterleavings(path, { ...options, strategy, seed, maxExecutions: SAMPLE_CAP })).tests[0]!;
        milliseconds += test.elapsedMs;
        if (test.status === 'fail') runs.push(test.executions);
        else missed++;
      }
      const mean = runs.length > 0 ? runs.reduce((sum, value) => sum + value, 0) / runs.length : 0;
      rows.push([
        harness.label, strategy, runs.length > 0 ? mean : '-', missed > 0 ? `> ${SAMPLE_CAP.toLocaleString('en-US')}` : Math.max(...runs),
        `${missed}/${SEEDS}`, `${(milliseconds / SEEDS).toFixed(1)} ms`,
      ]);
    }
    const delays = (await checkAllInterleavings(path, { ...options, bound: 'delay', maxBound: Number.POSITIVE_INFINITY, timeBudgetMs: SEARCH_BUDGET_MS })).tests[0]!;
    rows.push(searchRow(harness.label, 'dfs, bound=delay', delays));
    const test = (await checkAllInterleavings(path, { ...options, timeBudgetMs: SEARCH_BUDGET_MS })).tests[0]!;
    rows.push(searchRow(harness.label, `default (${defaults.strategy})`, test));
  }
  printTable(`runs to the first bug: mean and worst over seeds 1-${SEEDS} (samplers), the deterministic searches once`,
    ['harness', 'strategy', 'mean runs', 'worst runs', 'missed', 'mean time'], rows);
}

/** One run of a search: its runs to the bug and what the bug spent, or how far it got in the budget. */
function searchRow(label: string, strategy: string, test: TestResult): Cell[] {
  const found = test.status === 'fail';
  const runs = test.executions.toLocaleString('en-US');
  const spent = found ? test.bug!.delays ?? test.bug!.preemptions : 0;
  const what = `${test.boundType}${spent === 1 ? '' : 's'}`;
  return [
    label, found ? `${strategy} (bug: ${spent} ${what})` : strategy, found ? test.executions : '-',
    found ? test.executions : `none in ${SEARCH_BUDGET_MS / 1000} s (${runs} runs, ${test.guarantee})`,
    found ? '0/1' : '1/1', `${test.elapsedMs.toFixed(1)} ms`,
  ];
}
