// Samplers against the default search on harnesses too big to exhaust (fixtures/random/):
// runs to the first bug, mean and worst over 20 seeds, for random and pct, and what the
// default strategy does with a time budget (it does not depend on a seed).
import { checkAllInterleavings } from '../src/index.js';
import { defaults } from '../src/options.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const harnesses = [
  { file: 'random/torn_pair.c', label: 'torn pair, 12 writers + checker (1 preemption)' },
  { file: 'random/check_then_act.c', label: 'check then act, 7 threads (depth 2)' },
  { file: 'random/relay.c', label: 'relay, 7 threads (depth 3)' },
];

const SEEDS = 20;
/** runs per seed before a sampler counts as missing the bug */
const SAMPLE_CAP = 100_000;
const DEFAULT_BUDGET_MS = 30_000;

export async function randomBench(): Promise<void> {
  const rows = [];
  for (const harness of harnesses) {
    const path = fixture(harness.file);
    for (const strategy of ['random', 'pct']) {
      const runs: number[] = [];
      let missed = 0;
      let milliseconds = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const test = (await checkAllInterleavings(path, { strategy, seed, maxExecutions: SAMPLE_CAP })).tests[0]!;
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
    const test = (await checkAllInterleavings(path, { timeBudgetMs: DEFAULT_BUDGET_MS })).tests[0]!;
    const found = test.status === 'fail';
    rows.push([
      harness.label, `default (${defaults.strategy})`, found ? test.executions : '-', found ? test.executions : `none in ${DEFAULT_BUDGET_MS / 1000} s (${test.executions.toLocaleString('en-US')} runs)`,
      found ? '0/1' : '1/1', `${test.elapsedMs.toFixed(1)} ms`,
    ]);
  }
  printTable(`runs to the first bug: mean and worst over seeds 1-${SEEDS} (samplers), the default strategy once (no seed)`,
    ['harness', 'strategy', 'mean runs', 'worst runs', 'missed', 'mean time'], rows);
}
