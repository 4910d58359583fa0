// More random-program soundness seeds than npm test runs:
//   npm run soundness -- --known
//   npm run soundness -- --seeds 2000 [--first 1] [--bound 3] [--limit 5000] [--strategies hbcache,optimal] [--padding 31] [--threads 4] [--spinlocks] [--no-splits] [--graph-shapes] [--jobs 2] [--seed-minutes 20]
// Prints every seed that finds a difference (its program's file and the problem lines), then
// one summary line; exits 1 when a seed was unsound. Programs whose unbounded dfs exceeds
// --limit executions are compared at bounds 0..bound only (counted in the summary).
// --strategies checks only the strategies named (default: all); dfs always runs as the truth.
// --padding N gives every program N threads first that add no choice (ProgramShape.padding),
// so that its own threads have ids past the first word of a thread set; then the default
// leaves out hbcache, which explores at most HB_MAX_THREADS threads.
// --spinlocks gives every program a spinlock of its own (ProgramShape.spinlock: exchange,
// compare-exchange or test-and-set, with sched_yield in its loop or not, by seed).
// --graph-shapes keeps only what the graph engine models (withinGraphEngine), so that it is
// compared on every seed rather than refusing most.
// --no-splits leaves out the shard and worker splits of dfs and bpor (checked against the
// whole search): they cost several times the strategies' own runs at 4 and 5 threads.
// --threads N gives every program N threads, main included (the generator draws 2 or 3,
// mostly 2): races that only three or more threads make (a chain of reversals) show then.
// With 4 or 5 (withThreads) each thread has one operation and no yield, timed wait,
// barrier, counted reader or long run, so that dfs still finishes; a bounded dfs that runs
// past the strategies' cap is compared only at the bounds it finished. At 4 threads a seed
// takes some 2-6 s with --bound 1 --limit 20000 --strategies optimal,bpor on 2 busy cores.
//
// --known runs instead the seeds that npm test once ran for coverage alone, each list exactly
// as its test ran it (its program shape, strategies, bounds, execution limit, and the lists of
// the result it required empty): known-seeds.ts holds them, the one copy. The other options do
// not apply; it exits 1 when a seed shows anything its test would have failed on.
//
// Seeds run in child processes of CHUNK seeds each: a loaded harness library is never
// unloaded and maps about 70 regions, so one process would run out of mappings (the kernel
// allows 65,530) after some 900 programs. --jobs N runs N of them at once (the chunks are
// then split so that every job has one). A chunk hands over each seed's findings and totals
// as the seed ends; --seed-minutes M (default 20): a seed without a result after M minutes
// is a hang, counted unsound, and the seeds after it go on in a new chunk.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { HB_MAX_THREADS } from '../../src/explore/hb-state.js';
import { strategyNames } from '../../src/explore/strategies.js';
import { KNOWN_SEEDS, checkKnownSeed } from './known-seeds.js';
import { randomProgram, randomShape, spinlockShape, withThreads, withinGraphEngine } from './random-programs.js';
import { checkSoundness, type StrategyRuns } from './soundness-check.js';

const CHUNK = 250;
/** how a chunk's child process hands a seed's totals to the parent: a line after its findings */
const TOTALS = 'soundness totals: ';
/** how a chunk tells the parent which seed it starts (the parent's clock for --seed-minutes) */
const STARTED = 'soundness seed: ';

interface Totals {
  seeds: number;
  unsound: number[];
  /** seeds whose only differences are past a bug, or redundant runs */
  pastBug: number[];
  redundant: number[];
  /** seeds where a strategy ran into the oracle's execution cap (soundness-check.ts: compared only at the bounds it finished) */
  capped: number[];
  /** per strategy, the seeds whose program it refused (it does not model what the program uses) */
  refused: Record<string, number[]>;
  dfsTruncated: number;
  runs: Record<string, StrategyRuns>;
}

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} wants a non-negative integer, got '${value}'`);
    process.exit(2);
  }
  return n;
}

interface Programs {
  padding: number;
  /** every program's threads, main included (0: as drawn) */
  threads: number;
  spinlocks: boolean;
  /** compare shard and worker splits too */
  splits: boolean;
  /** only what the graph engine models */
  graphShapes: boolean;
}

function emptyTotals(): Totals {
  return { seeds: 0, unsound: [], pastBug: [], redundant: [], capped: [], refused: {}, dfsTruncated: 0, runs: {} };
}

/** Checks each seed and prints its findings, then its totals (TOTALS); seeds run in this process. */
async function checkSeeds(first: number, seeds: number, bound: number, limit: number, only: string[] | undefined, programs: Programs): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-soundness-'));
  for (let seed = first; seed < first + seeds; seed++) {
    console.log(`${STARTED}${seed}`);
    const totals = emptyTotals();
    totals.seeds = 1;
    const drawn = randomShape(seed);
    const threaded = { ...withThreads(drawn, programs.threads || drawn.threads), padding: programs.padding };
    const locked = programs.spinlocks ? { ...threaded, spinlock: spinlockShape(seed) } : threaded;
    const shape = programs.graphShapes ? withinGraphEngine(locked) : locked;
    const file = join(dir, `random_${seed}.c`);
    writeFileSync(file, randomProgram(seed, shape));
    try {
      const result = await checkSoundness(file, shape.plain ? 'sc' : 'drf', bound, limit, only, programs.splits);
      if (result.dfsTruncated) totals.dfsTruncated++;
      add(totals.runs, result.runs);
      const lines = [...result.problems, ...result.pastBug.map((line) => `past a bug: ${line}`), ...result.redundant.map((line) => `redundant: ${line}`)];
      if (lines.length > 0) console.log(`seed ${seed} (${file}):\n  ${lines.join('\n  ')}`);
      if (result.problems.length > 0) totals.unsound.push(seed);
      else if (result.pastBug.length > 0) totals.pastBug.push(seed);
      if (result.redundant.length > 0) totals.redundant.push(seed);
      if (result.truncated.length > 0) totals.capped.push(seed);
      for (const name of result.refused) noteRefused(totals, name, [seed]);
    } catch (error) {
      totals.unsound.push(seed);
      console.log(`seed ${seed} (${file}):\n  the check failed: ${(error as Error).message}`);
    }
    console.log(`${TOTALS}${JSON.stringify(totals)}`);
  }
}

/** Adds one chunk's (or seed's) totals to `into`. */
function merge(into: Totals, from: Totals): void {
  into.seeds += from.seeds;
  into.unsound.push(...from.unsound);
  into.pastBug.push(...from.pastBug);
  into.redundant.push(...from.redundant);
  into.capped.push(...from.capped);
  for (const [name, refused] of Object.entries(from.refused)) noteRefused(into, name, refused);
  into.dfsTruncated += from.dfsTruncated;
  add(into.runs, from.runs);
}

function noteRefused(totals: Totals, name: string, seeds: number[]): void {
  const refused = totals.refused[name] ?? [];
  totals.refused[name] = refused;
  refused.push(...seeds);
}

function add(into: Record<string, StrategyRuns>, runs: Record<string, StrategyRuns>): void {
  for (const [name, { executions, wasted }] of Object.entries(runs)) {
    const total = into[name] ?? { executions: 0, wasted: 0 };
    into[name] = total;
    total.executions += executions;
    total.wasted += wasted;
  }
}

const { values } = parseArgs({
  options: { seeds: { type: 'string' }, first: { type: 'string' }, bound: { type: 'string' }, limit: { type: 'string' }, strategies: { type: 'string' }, padding: { type: 'string' }, threads: { type: 'string' }, spinlocks: { type: 'boolean' }, 'no-splits': { type: 'boolean' }, 'graph-shapes': { type: 'boolean' }, chunk: { type: 'boolean' }, known: { type: 'boolean' }, jobs: { type: 'string' }, 'seed-minutes': { type: 'string' } },
});
const seeds = count(values.seeds, 'seeds', 50);
const first = count(values.first, 'first', 1);
const bound = count(values.bound, 'bound', 3);
const limit = count(values.limit, 'limit', 5_000);
const padding = count(values.padding, 'padding', 0);
const threads = count(values.threads, 'threads', 0);
const jobs = Math.max(1, count(values.jobs, 'jobs', 1));
const seedMinutes = Math.max(1, count(values['seed-minutes'], 'seed-minutes', 20));
if (threads === 1) {
  console.error('--threads: at least 2 (main and one more)');
  process.exit(2);
}
const only = values.strategies?.split(',') ?? (padding + 3 > HB_MAX_THREADS ? strategyNames().filter((name) => name !== 'hbcache') : undefined);
const unknown = only?.filter((name) => !strategyNames().includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`--strategies: unknown ${unknown.join(', ')} (known: ${strategyNames().join(', ')})`);
  process.exit(2);
}

if (values.known) {
  // in this process: a few dozen programs, far from the mappings a chunk is cut short of
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'weft-soundness-known-'));
  const failed: string[] = [];
  let checked = 0;
  const write = (source: string, name: string) => {
    const file = join(dir, name);
    writeFileSync(file, source);
    return file;
  };
  for (const list of KNOWN_SEEDS) {
    for (const seed of list.seeds) {
      const { file, failures } = await checkKnownSeed(list, seed, write).catch((error: Error) => ({ file: join(dir, list.fileName(seed)), failures: [`the check failed: ${error.message}`] }));
      checked++;
      if (failures.length === 0) continue;
      failed.push(`${list.name} ${seed}`);
      console.log(`${list.name}, seed ${seed} (${file}):\n  ${failures.join('\n  ')}`);
    }
  }
  const elapsed = (Date.now() - started) / 1000;
  console.log(`soundness --known: ${checked} seeds of ${KNOWN_SEEDS.length} lists, ${failed.length} failed${failed.length > 0 ? ` (${failed.join(', ')})` : ''}; ${elapsed.toFixed(1)} s`);
  process.exit(failed.length > 0 ? 1 : 0);
}

if (values.chunk) {
  await checkSeeds(first, seeds, bound, limit, only, {
    padding, threads, spinlocks: values.spinlocks === true, splits: values['no-splits'] !== true, graphShapes: values['graph-shapes'] === true,
  });
  process.exit(0);
}

const started = Date.now();
const totals = emptyTotals();
const chunkSize = Math.min(CHUNK, Math.ceil(seeds / jobs));
const chunks: { from: number; size: number }[] = [];
for (let from = first; from < first + seeds; from += chunkSize) chunks.push({ from, size: Math.min(chunkSize, first + seeds - from) });

/**
 * Runs one chunk in a child process, printing each seed's findings and adding its totals
 * as it ends. A seed past --seed-minutes stops the chunk; the seeds after it run in another.
 */
async function runChunk({ from, size }: { from: number; size: number }): Promise<void> {
  const args = ['--seeds', `${size}`, '--first', `${from}`, '--bound', `${bound}`, '--limit', `${limit}`, '--padding', `${padding}`, '--threads', `${threads}`, '--chunk'];
  if (only) args.push('--strategies', only.join(','));
  if (values.spinlocks) args.push('--spinlocks');
  if (values['no-splits']) args.push('--no-splits');
  if (values['graph-shapes']) args.push('--graph-shapes');
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let seed = from;
  let done = 0;
  let hung = false;
  let watchdog: NodeJS.Timeout | undefined;
  let pending = '';
  const onLine = (line: string): void => {
    if (line.startsWith(STARTED)) {
      seed = Number(line.slice(STARTED.length));
      clearTimeout(watchdog);
      watchdog = setTimeout(() => { hung = true; child.kill('SIGKILL'); }, seedMinutes * 60_000);
    } else if (line.startsWith(TOTALS)) {
      merge(totals, JSON.parse(line.slice(TOTALS.length)) as Totals);
      done++;
    } else console.log(line);
  };
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(watchdog);
  if (pending !== '') onLine(pending);
  if (hung) {
    console.log(`seed ${seed}:\n  no result in ${seedMinutes} min: a hang (its chunk was stopped there)`);
    merge(totals, { ...emptyTotals(), seeds: 1, unsound: [seed] });
    if (seed + 1 < from + size) await runChunk({ from: seed + 1, size: from + size - seed - 1 });
    return;
  }
  if (status !== 0 || done !== size) {
    console.error(`seeds ${from}-${from + size - 1}: the check failed at seed ${seed} (exit status ${status})`);
    process.exit(2);
  }
}

let next = 0;
async function worker(): Promise<void> {
  while (next < chunks.length) await runChunk(chunks[next++]!);
}
await Promise.all(Array.from({ length: Math.min(jobs, chunks.length) }, worker));
const byNumber = (a: number, b: number) => a - b;
for (const list of [totals.unsound, totals.pastBug, totals.redundant, totals.capped, ...Object.values(totals.refused)]) list.sort(byNumber);
function listed(seeds: number[], what: string): string {
  return `${seeds.length} ${what}${seeds.length > 0 ? ` (${seeds.join(' ')})` : ''}`;
}

const refusals = Object.entries(totals.refused).map(([name, refused]) => `${name} refused ${listed(refused, 'seeds')}`).join(', ');
const perStrategy = Object.entries(totals.runs).map(([name, { executions, wasted }]) => `${name} ${executions} executions/${wasted} wasted`).join(', ');
const elapsed = (Date.now() - started) / 1000;
console.log(
  `soundness: ${seeds} seeds from ${first}${padding > 0 ? ` (padded with ${padding} threads)` : ''}${threads > 0 ? ` (${threads} threads each)` : ''}${values.spinlocks ? ' (each with a spinlock)' : ''}${values['no-splits'] ? ' (no splits)' : ''}${values['graph-shapes'] ? ' (what the graph engine models)' : ''}, bounds 0-${bound}: ${listed(totals.unsound, 'unsound')}; ` +
    `${listed(totals.pastBug, 'different only past a bug')}; ${listed(totals.redundant, 'with redundant runs')}; ` +
    `${listed(totals.capped, 'where a strategy ran past the execution cap (compared only at the bounds it finished)')}; ` +
    `${refusals === '' ? '' : `programs refused: ${refusals}; `}${perStrategy}; ` +
    `unbounded dfs over ${limit} executions on ${totals.dfsTruncated} seeds; ${elapsed.toFixed(1)} s (${(elapsed / seeds).toFixed(2)} s/seed)`,
);
process.exit(totals.unsound.length > 0 ? 1 : 0);
