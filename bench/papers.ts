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
  fixture: string;
  seconds: number | null;
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
 * SCALE's Tables 6.1-6.3 (thesis, seed 000: runs and seconds of each tool, copied as
 * printed into bench/paper-numbers.json; SCALE and Inspect explore completely, CHESS(k)
 * only up to k preemptions) next to weft's strategies on its own re-expression of each
 * program with the same parameters: the bounded ones at bound 2 (as CHESS(2)), optimal
 * completely (as SCALE and Inspect).
 */
const BOUNDED = ['dfs', 'bpor', 'hbcache'] as const;
const SCALE_BOUND = 2;
const SCALE_BUDGET = { maxExecutions: 2_000_000, timeBudgetMs: 60_000 };

export async function scaleBench(): Promise<void> {
  const entries = paperNumbers().filter((entry) => entry.table.startsWith('Table 6.'));
  const settings = [...new Map(entries.map((entry) => [`${entry.table} ${JSON.stringify(entry.params)}`, entry])).values()];
  const rows = [];
  for (const setting of settings) {
    const same = entries.filter((entry) => entry.table === setting.table && JSON.stringify(entry.params) === JSON.stringify(setting.params));
    const printed = (tool: string, bound: number | null = null) => {
      const entry = same.find((candidate) => candidate.tool === tool && candidate.bound === bound);
      return entry?.executions == null ? '-' : `${entry.executions} (${entry.seconds} s)`;
    };
    const cflags = Object.entries(setting.params).map(([name, value]) => `-D${name}=${value}`).join(' ');
    const file = fixture(setting.fixture.replace(/^fixtures\//, ''));
    const row: (string | number)[] = [setting.table.replace(/ \(.*/, ''), Object.entries(setting.params).map(([k, v]) => `${k}=${v}`).join(' ')];
    row.push(printed('SCALE'), printed('Inspect'), printed('CHESS', SCALE_BOUND));
    const results = [];
    for (const strategy of [...BOUNDED, 'optimal']) {
      const test = (await checkAllInterleavings(file, { strategy, maxBound: SCALE_BOUND, cflags, ...SCALE_BUDGET })).tests[0]!;
      const executions = test.status === 'pass' && test.guarantee.startsWith('budget') ? `>${test.executions}` : `${test.executions}`;
      row.push(`${executions} (${(test.elapsedMs / 1000).toFixed(2)} s)`);
      results.push(test);
    }
    const optimal = results.at(-1)!;
    row.push(Math.round(optimal.executions / (optimal.elapsedMs / 1000)));
    rows.push(row);
  }
  printTable(`SCALE's Tables 6.1-6.3 (runs and seconds as printed in the thesis) and weft: dfs, bpor, hbcache at bound ${SCALE_BOUND} (like CHESS(2)); optimal complete (like SCALE, Inspect)`,
    ['table', 'parameters', 'SCALE', 'Inspect', 'CHESS(2)', 'weft dfs(2)', 'weft bpor(2)', 'weft hbcache(2)', 'weft optimal', 'optimal executions/s'], rows);
}
