// 100,000 executions that crash (SIGSEGV inside the harness): the process survives each
// one, and its memory stays flat.
import { buildHarness } from '../src/compile/compile.js';
import { openHarness } from '../src/addon/addon.js';
import { Outcome } from '../src/addon/ops.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

export async function robustnessBench(): Promise<void> {
  const harness = openHarness(buildHarness(fixture('detectors/robustness.c')).library);
  const test = harness.tests().findIndex((t) => t.name === 'writes_to_a_wild_address');
  const none = new Uint16Array(0);
  const rows = [];
  let crashes = 0;
  const started = performance.now();
  for (let run = 1; run <= 100_000; run++) {
    if (harness.run(test, none, 0, 1000, 0) === Outcome.CRASH) crashes++;
    if (run === 1 || run === 1000 || run === 10_000 || run === 100_000)
      rows.push([run, crashes, Math.round(process.memoryUsage().rss / 1024), ((performance.now() - started) / 1000).toFixed(2)]);
  }
  printTable('robustness: executions that crash with SIGSEGV, one process', ['executions', 'crashes reported', 'RSS (KiB)', 'seconds'], rows);
}
