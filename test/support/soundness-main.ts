// More random-program soundness seeds than npm test runs:
//   npm run soundness -- --seeds 2000 [--first 1] [--bound 3] [--limit 5000]
// Prints every seed that finds a difference (its program's file and the problem lines), then
// one summary line; exits 1 when a seed was unsound. Programs whose unbounded dfs exceeds
// --limit executions are compared at bounds 0..bound only (counted in the summary).
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
const limit = count(values.limit, 'limit', 5_000);

const dir = mkdtempSync(join(tmpdir(), 'weft-soundness-'));
const started = Date.now();
let unsound = 0;
let dfsTruncated = 0;
const totals = new Map<string, { executions: number; wasted: number }>();
for (let seed = first; seed < first + seeds; seed++) {
  const shape = randomShape(seed);
  const file = join(dir, `random_${seed}.c`);
  writeFileSync(file, randomProgram(seed, shape));
  let result;
  try {
    result = await checkSoundness(file, shape.plain ? 'sc' : 'drf', bound, limit);
  } catch (error) {
    unsound++;
    console.log(`seed ${seed} (${file}):\n  the oracle failed: ${(error as Error).message}`);
    continue;
  }
  if (result.dfsTruncated) dfsTruncated++;
  for (const [name, runs] of Object.entries(result.runs)) {
    const total = totals.get(name) ?? { executions: 0, wasted: 0 };
    total.executions += runs.executions;
    total.wasted += runs.wasted;
    totals.set(name, total);
  }
  if (result.problems.length > 0) {
    unsound++;
    console.log(`seed ${seed} (${file}):\n  ${result.problems.join('\n  ')}`);
  }
}
const perStrategy = [...totals].map(([name, { executions, wasted }]) => `${name} ${executions} executions/${wasted} wasted`).join(', ');
const elapsed = (Date.now() - started) / 1000;
console.log(
  `soundness: ${seeds} seeds from ${first}, bounds 0-${bound}: ${unsound} unsound; ${perStrategy}; ` +
    `unbounded dfs over ${limit} on ${dfsTruncated} seeds; ${elapsed.toFixed(1)} s (${(elapsed / seeds).toFixed(3)} s/seed)`,
);
process.exit(unsound > 0 ? 1 : 0);
