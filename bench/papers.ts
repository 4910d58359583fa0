// Seed 001's Table 1, in shape: terminal executions of cb-dfs (weft's dfs) and of cb-por
// (the paper's Algorithm 2: weft's hbcache; bpor beside it) per context bound, on a
// work-stealing queue of sizes 3 to 5, beside the paper's numbers (bench/paper-numbers.json, copied from the seed; its queue is a
// 1,000-line C++ implementation, ours a small re-expression: compare shapes, not values).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkAllInterleavings } from '../src/index.js';
import { packageRoot } from '../src/paths.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const BUDGET = { maxExecutions: 3_000_000, timeBudgetMs: 120_000 };

interface PaperNumber {
  table: string;
  params: Record<string, number>;
  tool: string;
  bound: number | null;
  executions: number | null;
}

const paperNumbers = (): PaperNumber[] =>
  JSON.parse(readFileSync(join(packageRoot, 'bench', 'paper-numbers.json'), 'utf8')) as PaperNumber[];

export async function papersBench(): Promise<void> {
  const paper = paperNumbers().filter((entry) => entry.table === 'Table 1');
  const printed = (size: number, tool: string, bound: number) =>
    paper.find((entry) => entry.params.SIZE === size && entry.tool === tool && entry.bound === bound)?.executions ?? '';
  const rows = [];
  for (const size of [3, 4, 5]) {
    const cflags = `-DSIZE=${size}`;
    for (let bound = 0; bound <= 4; bound++) {
      const row: (string | number)[] = [size, bound];
      for (const strategy of ['dfs', 'hbcache', 'bpor'] as const) {
        const test = (await checkAllInterleavings(fixture('seeds/work_stealing_queue.c'), { strategy, maxBound: bound, cflags, ...BUDGET })).tests[0]!;
        row.push(test.status === 'pass' && test.guarantee.startsWith('budget') ? `>${test.executions}` : test.executions);
        if (strategy === 'hbcache') row.push(`${(test.elapsedMs / 1000).toFixed(2)} s`, test.redundantRuns);
      }
      const [dfs, hbcache] = [row[2], row[3]] as [number, number];
      row.push(typeof dfs === 'number' && typeof hbcache === 'number' ? `${Math.round((1 - hbcache / dfs) * 100)}%` : '');
      const [paperDfs, paperPor] = [printed(size, 'cb-dfs', bound), printed(size, 'cb-por', bound)];
      row.push(paperDfs, paperPor, typeof paperDfs === 'number' && typeof paperPor === 'number' ? `${Math.round((1 - paperPor / paperDfs) * 100)}%` : '');
      rows.push(row);
    }
    const optimal = (await checkAllInterleavings(fixture('seeds/work_stealing_queue.c'), { strategy: 'optimal', cflags, ...BUDGET })).tests[0]!;
    rows.push([size, 'all', '', '', '', '', optimal.executions, '(optimal)', '', '', '']);
  }
  printTable("seed 001 Table 1's shape: work-stealing queue, terminal executions per context bound",
    ['size', 'bound', 'weft dfs', 'weft hbcache', 'hbcache time', 'hbcache runs cut', 'weft bpor', 'saved (hbcache)', 'paper cb-dfs', 'paper cb-por', 'saved (paper)'], rows);
}

/**
 * SCALE's Tables 6.2 and 6.3 (thesis, seed 000: "Runs" of each tool, copied as printed;
 * SCALE and Inspect are stateful or sleep-set based, CHESS(k) is bounded and incomplete)
 * next to weft's optimal exploration of its own re-expression of each program.
 */
const scaleTables = [
  { fixture: 'seeds/thread_pool.c', cflags: (size: number) => `-DPOOL_SIZE=${size}`, label: 'thread pool, size',
    rows: [[1, 6, 3, 15], [2, 124, 102, 367], [3, 3347, 4030, 14024], [4, 127766, 324772, 998381]] },
  { fixture: 'seeds/reusable_barrier.c', cflags: (steps: number) => `-DN=2 -DSTEPS=${steps}`, label: 'barrier N=2, STEPS',
    rows: [[1, 6, 3, 15], [2, 54, 27, 42], [3, 486, 243, 81], [4, 4374, 2187, 132]] },
];

export async function scaleBench(): Promise<void> {
  const rows = [];
  for (const table of scaleTables) {
    for (const [parameter, scale, inspect, chess] of table.rows as [number, number, number, number][]) {
      const test = (await checkAllInterleavings(fixture(table.fixture), {
        strategy: 'optimal', cflags: table.cflags(parameter), ...BUDGET,
      })).tests[0]!;
      rows.push([`${table.label} ${parameter}`, scale, inspect, chess, test.complete ? test.executions : `>${test.executions}`, `${(test.elapsedMs / 1000).toFixed(2)} s`]);
    }
  }
  printTable("SCALE's Tables 6.2-6.3 (runs as printed in the thesis) and weft's optimal exploration",
    ['program', 'SCALE', 'Inspect', 'CHESS(2)', 'weft optimal', 'weft time'], rows);
}
