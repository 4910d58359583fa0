// Core throughput: complete executions per second and scheduling points (events) per
// second with dfs, and the cost of one fiber switch.
import { buildHarness } from '../src/compile/compile.js';
import { checkAllInterleavings } from '../src/index.js';
import { openHarness } from '../src/addon/addon.js';
import { fixture } from './fixtures.js';
import { printTable } from './table.js';

const throughputCases = [
  { file: 'bench/two_threads_20_points.c', maxBound: 4, mode: 'drf' as const },
  { file: 'bench/two_threads_20_points.c', maxBound: 1000, mode: 'drf' as const },
  { file: 'locked_counter.c', maxBound: 1000, mode: 'sc' as const },
];

export async function coreBench(): Promise<void> {
  const rows = [];
  for (const { file, maxBound, mode } of throughputCases) {
    const path = fixture(file);
    await checkAllInterleavings(path, { strategy: 'dfs', maxBound, mode }); // warm: build + JIT
    const result = await checkAllInterleavings(path, { strategy: 'dfs', maxBound, mode });
    const test = result.tests[0]!;
    const events = countEvents(path, mode);
    const seconds = test.elapsedMs / 1000;
    rows.push([`${file} (${mode}, bound ${maxBound})`, test.executions, events, Math.round(test.executions / seconds), Math.round((test.executions * events) / seconds)]);
  }
  printTable('core: dfs throughput', ['harness', 'executions', 'steps/exec', 'executions/s', 'events/s'], rows);

  const switches = 100_000;
  const pingPong = openHarness(buildHarness(fixture('bench/ping_pong.c'), { cflags: `-DSWITCHES=${switches}` }).library);
  const none = new Uint16Array(0);
  pingPong.run(0, none, 0, 1 << 20, 0);
  const steps = pingPong.trace().status[0]!;
  const started = process.hrtime.bigint();
  const repeats = 5;
  for (let i = 0; i < repeats; i++) pingPong.run(0, none, 0, 1 << 20, 0);
  const nanoseconds = Number(process.hrtime.bigint() - started) / repeats;
  printTable('core: fiber switch (two threads yielding to each other)', ['switches/exec', 'steps/exec', 'ns per step (switch + scheduling)'], [[switches, steps, nanoseconds / steps]]);

  // every plain access goes through the race detector's hook in drf mode
  const accesses = 100_000;
  const accessCases = [
    // main writes every element; each of 2 threads reads it and reads and writes its sum
    { mode: 'drf (race detection)', file: 'bench/plain_accesses.c', perExecution: accesses + 2 * 3 * accesses },
    // each of 2 threads writes and reads accesses / 2 cells of its own stack
    { mode: 'drf (own stack, unshared)', file: 'bench/stack_accesses.c', perExecution: 2 * accesses },
  ];
  const accessRows = accessCases.map(({ mode, file, perExecution }) => [mode, perExecution, nanosecondsPerExecution(file, accesses) / perExecution]);
  printTable('core: plain memory accesses', ['mode', 'accesses/exec', 'ns per access'], accessRows);
}

/** The mean time of the default execution of a harness built with -DACCESSES=n, warm. */
function nanosecondsPerExecution(file: string, accesses: number): number {
  const harness = openHarness(buildHarness(fixture(file), { cflags: `-DACCESSES=${accesses}` }).library);
  const none = new Uint16Array(0);
  const runs = 20;
  harness.run(0, none, 0, 1 << 20, 0);
  const begin = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) harness.run(0, none, 0, 1 << 20, 0);
  return Number(process.hrtime.bigint() - begin) / runs;
}

/** Scheduling points of the default execution. */
function countEvents(path: string, mode: 'drf' | 'sc'): number {
  const harness = openHarness(buildHarness(path).library);
  harness.run(0, new Uint16Array(0), 0, 50_000, mode === 'sc' ? 1 : 0);
  return harness.trace().status[0]!;
}
