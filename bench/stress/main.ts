// The stress-testing baseline: each buggy harness compiled natively with real threads and
// run over and over (up to a time budget), next to weft finding the same bug.
import { spawnSync } from 'node:child_process';

import { buildNative } from './build.js';
import { checkAllInterleavings } from '../../src/index.js';
import { fixture } from '../fixtures.js';
import { printTable } from '../table.js';

export interface BuggyHarness {
  file: string;
  test: string;
  mode?: 'drf' | 'sc';
  cflags?: string;
}

export const buggyHarnesses: BuggyHarness[] = [
  { file: 'lost_update.c', test: 'lost_update', mode: 'sc' },
  { file: 'core/create_order.c', test: 'created_thread_runs_first' },
  { file: 'deadlock_two_locks.c', test: 'lock_order' },
  { file: 'primitives/bounded_buffer.c', test: 'two_consumers' },
  { file: 'primitives/once.c', test: 'hand_rolled_flag' },
];

const BUDGET_MS = 3000;
const RUN_TIMEOUT_MS = 1000; // a run this long is a hang: the deadlock showed up

export async function stressBench(harnesses: BuggyHarness[] = buggyHarnesses): Promise<void> {
  const rows = [];
  for (const harness of harnesses) {
    const path = fixture(harness.file);
    const weft = (await checkAllInterleavings(path, { test: harness.test, ...(harness.mode ? { mode: harness.mode } : {}), ...(harness.cflags ? { cflags: harness.cflags } : {}) })).tests[0]!;
    const stress = stressRun(buildNative(path, harness.cflags ? { cflags: harness.cflags } : {}), harness.test);
    rows.push([
      `${harness.file} ${harness.test}`,
      weft.status === 'fail' ? `${weft.executions} (${weft.elapsedMs.toFixed(1)} ms)` : 'not found',
      stress.runs,
      stress.firstFailure === undefined ? 'never' : `run ${stress.firstFailure} (${stress.firstFailureMs} ms)`,
      stress.failures,
    ]);
  }
  printTable(`stress baseline: native runs with real threads (budget ${BUDGET_MS} ms each) vs weft`,
    ['harness', 'weft: executions to bug', 'native runs', 'native: first failure', 'native failures'], rows);
}

function stressRun(executable: string, test: string): { runs: number; failures: number; firstFailure?: number; firstFailureMs?: number } {
  const started = Date.now();
  let runs = 0;
  let failures = 0;
  let firstFailure: number | undefined;
  let firstFailureMs: number | undefined;
  while (Date.now() - started < BUDGET_MS) {
    const run = spawnSync(executable, [test], { timeout: RUN_TIMEOUT_MS, stdio: 'ignore' });
    runs++;
    if (run.status !== 0) {
      failures++;
      if (firstFailure === undefined) {
        firstFailure = runs;
        firstFailureMs = Date.now() - started;
      }
    }
  }
  return { runs, failures, ...(firstFailure !== undefined ? { firstFailure, firstFailureMs: firstFailureMs! } : {}) };
}
