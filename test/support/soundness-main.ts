// More random-program soundness seeds than npm test runs:
//   npm run soundness -- --seeds 200 [--first 1] [--bound 3] [--limit 200000]
// Exits 1 and prints the program's file when a seed finds a difference. Programs whose
// unbounded dfs exceeds --limit executions are checked for bpor only (counted).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { randomProgram, randomShape } from './random-programs.js';
import { checkSoundness } from './soundness-check.js';

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} wants a non-negative integer, got '${value}'`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({ options: { seeds: { type: 'string' }, first: { type: 'string' }, bound: { type: 'string' }, limit: { type: 'string' } } });
const seeds = count(values.seeds, 'seeds', 50);
const first = count(values.first, 'first', 1);
const bound = count(values.bound, 'bound', 3);
const limit = count(values.limit, 'limit', 200_000);

const dir = mkdtempSync(join(tmpdir(), 'weft-soundness-'));
const started = Date.now();
let failures = 0;
let optimalUnchecked = 0;
let optimalExecutions = 0;
let optimalWasted = 0;
for (let seed = first; seed < first + seeds; seed++) {
  const shape = randomShape(seed);
  const file = join(dir, `random_${seed}.c`);
  writeFileSync(file, randomProgram(seed, shape));
  const { problems, optimalUnchecked: unchecked, optimal } = await checkSoundness(file, shape, bound, limit);
  if (unchecked) optimalUnchecked++;
  optimalExecutions += optimal.executions;
  optimalWasted += optimal.wasted;
  if (problems.length > 0) {
    failures++;
    console.log(`seed ${seed} (${file}):\n  ${problems.join('\n  ')}`);
  }
}
console.log(`${seeds} seeds from ${first}, bounds 0-${bound}: ${failures} unsound, optimal unchecked on ${optimalUnchecked} (unbounded dfs over ${limit}), ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`optimal on all ${seeds}: ${optimalExecutions} executions, ${optimalWasted} wasted runs (abandoned as redundant)`);
process.exit(failures > 0 ? 1 : 0);
