// Seed 001's Table 1, in shape: terminal executions of cb-dfs (weft's dfs) and of
// partial-order reduction under the bound (weft's bpor; the paper's cb-por is its
// Algorithm 2) per context bound, on a work-stealing queue of sizes 3 to 5. The paper's
// own table did not survive in the text we have; what it says of it: "for small
// context-bounds, there is negligible difference", and "with a context-bound of 4 around
// 40% of the executions performed by cb-dfs are redundant".
import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const BUDGET = { maxExecutions: 3_000_000, timeBudgetMs: 120_000 };

export async function papersBench(): Promise<void> {
  const rows = [];
  for (const size of [3, 4, 5]) {
    const cflags = `-DSIZE=${size}`;
    for (let bound = 0; bound <= 4; bound++) {
      const row: (string | number)[] = [size, bound];
      for (const strategy of ['dfs', 'bpor']) {
        const test = (await checkAllInterleavings(fixture('seeds/work_stealing_queue.c'), { strategy, maxBound: bound, cflags, ...BUDGET })).tests[0]!;
        row.push(test.status === 'pass' && test.guarantee.startsWith('budget') ? `>${test.executions}` : test.executions);
      }
      const [dfs, bpor] = [row[2], row[3]] as [number, number];
      row.push(typeof dfs === 'number' && typeof bpor === 'number' ? `${Math.round((1 - bpor / dfs) * 100)}%` : '');
      rows.push(row);
    }
    const optimal = (await checkAllInterleavings(fixture('seeds/work_stealing_queue.c'), { strategy: 'optimal', cflags, ...BUDGET })).tests[0]!;
    rows.push([size, 'all', '', optimal.executions, '(optimal: every Mazurkiewicz trace once)']);
  }
  printTable("seed 001 Table 1's shape: work-stealing queue, terminal executions per context bound",
    ['size', 'bound', 'cb-dfs (dfs)', 'cb-por (bpor)', 'saved by POR'], rows);
}
