// Ctrl-C and cancellation: an aborted signal (CheckOptions.signal; the CLI's on SIGINT and
// SIGTERM) stops the test being explored, on one process or on worker processes, reports
// what was explored, lists the tests and files it kept from running, and leaves no worker
// process behind; the CLI then exits 130. A C test Vitest aborts (--bail, Ctrl-C in watch
// mode, a timeout) stops the same way and fails with what it explored.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it, onTestFinished } from 'vitest';

import { type CheckOptions, type CheckResult, checkAllInterleavings } from '../src/index.js';
import { cliPath, packageRoot } from '../src/paths.js';
import { fixture, unwrapped, writeHarness } from './support/harness.js';
import { commandOf, workersOf } from './support/processes.js';
import { createProject } from './support/vitest-project.js';

/** Far too many executions to finish while a test waits (4 threads, 3 locked increments each), then a test that would be quick. */
const harness = writeHarness(
  `${readFileSync(fixture('por/locked_increments.c'), 'utf8')}
WEFT_TEST(after_it) {
  weft_assert(1);
}
`,
  'interrupted.c',
);
const manyOrders = ['-DTHREADS=4', '-DINCREMENTS=3'];
const big = { cflags: manyOrders, mode: 'sc', maxBound: 8 } as const;

/** How long the search runs, once it reported progress, before the signal aborts. */
const RUN_BEFORE_ABORT_MS = 300;

/** Checks the harness and aborts a little after the first progress with executions; `onProgress` sees the progress too. */
async function checkAborted(options: CheckOptions, onProgress: () => void = () => {}): Promise<CheckResult> {
  const controller = new AbortController();
  let exploring = false;
  return checkAllInterleavings(harness, {
    ...big, ...options, signal: controller.signal,
    onProgress: ({ executions }) => {
      onProgress();
      // worker processes take a while to start: progress comes before their first executions
      if (!exploring && executions > 0) setTimeout(() => controller.abort(), RUN_BEFORE_ABORT_MS);
      exploring ||= executions > 0;
    },
  });
}

function expectInterrupted(result: CheckResult): void {
  const [test] = result.tests;
  expect(result.tests).toHaveLength(1);
  expect(test).toMatchObject({ name: 'locked_increments', status: 'pass', partial: true, interrupted: true, complete: false });
  expect(test!.executions).toBeGreaterThan(0);
  expect(test!.guarantee).toMatch(/^interrupted /);
  expect(result).toMatchObject({ interrupted: true, notRun: ['after_it'] });
}

describe('checkAllInterleavings with an aborted signal', () => {
  // auto's result comes from its optimal phase: the bounded phase does not start after the interrupt
  it.each([
    ['auto', { workers: 1 }, 'optimal'],
    ['dfs', { strategy: 'dfs' }, 'dfs'],
    ['optimal', { strategy: 'optimal' }, 'optimal'],
  ] as const)('%s: stops the test, says what it explored, and runs no test after it', async (_, options, strategy) => {
    const result = await checkAborted(options);
    expectInterrupted(result);
    expect(result.tests[0]!.strategy).toBe(strategy);
    // optimal DPOR has no bound it is exploring: it explores them all at once
    const where = strategy === 'optimal' ? 'after [\\d,]+ executions of optimal DPOR, which explores every bound at once' : 'during bound \\d+ after [\\d,]+ executions';
    expect(result.tests[0]!.guarantee).toMatch(new RegExp(`^interrupted ${where}; (all executions with ≤ \\d+ preemptions explored|no bound fully explored)`));
  });

  it.each(['random', 'pct'] as const)('%s: the sampler stops too', async (strategy) => {
    const result = await checkAborted({ strategy, maxExecutions: 1e9 });
    expectInterrupted(result);
    expect(result.tests[0]!.guarantee).toMatch(/^interrupted after [\d,]+ runs, no bug; /);
  });

  it('explores nothing once the signal has aborted, and lists every test as not run', async () => {
    const result = await checkAllInterleavings(harness, { ...big, signal: AbortSignal.abort() });
    expect(result).toMatchObject({ tests: [], interrupted: true, notRun: ['locked_increments', 'after_it'] });
  });

  it('bpor on worker processes: stops every worker, counts their executions, and ends them', async () => {
    const workers = new Set<number>();
    const result = await checkAborted({ strategy: 'bpor', workers: 2 }, () => {
      for (const pid of workersOf(process.pid)) workers.add(pid);
    });
    expectInterrupted(result);
    expect(result.tests[0]!.strategy).toBe('bpor');
    expect(workers.size).toBeGreaterThan(0);
    expect([...workers].filter((pid) => commandOf(pid) !== '')).toEqual([]);
  });
});

describe('weft check interrupted', () => {
  it('Ctrl-C (SIGINT to the process group, as a terminal sends it): the JSON of what was explored, exit status 130, no worker left', async () => {
    // its own process group, so that the workers get the SIGINT too, as on a terminal
    const cli = spawnCli([harness, fixture('locked_counter.c'), '--cflags', manyOrders.join(' '), '--mode', 'sc', '--max-bound', '8', '--strategy', 'bpor', '--workers', '2', '--json'], true);
    let workers: number[] = [];
    while (workers.length === 0 && cli.process.exitCode === null) {
      await pause(50);
      workers = workersOf(cli.process.pid!);
    }
    await pause(RUN_BEFORE_ABORT_MS);
    process.kill(-cli.process.pid!, 'SIGINT');
    const { status, stdout } = await cli.ended;
    expect(status).toBe(130);
    const [interrupted, notStarted] = JSON.parse(stdout).files;
    expect(interrupted).toMatchObject({ interrupted: true, notRun: ['after_it'], tests: [{ name: 'locked_increments', status: 'pass', partial: true, interrupted: true }] });
    expect(interrupted.tests[0].guarantee).toMatch(/^interrupted /);
    expect(notStarted).toEqual({ file: fixture('locked_counter.c'), tests: [], interrupted: true });
    expect(workers.filter((pid) => commandOf(pid) !== '')).toEqual([]);
  });

  it('SIGTERM: the text report of what was explored, the tests and files not run, exit status 130', async () => {
    // the library the CLI loads once it explores: built (and cached) here, with nothing explored
    const { library } = await checkAllInterleavings(harness, { ...big, signal: AbortSignal.abort() });
    const cli = spawnCli([harness, fixture('locked_counter.c'), '--cflags', manyOrders.join(' '), '--mode', 'sc', '--max-bound', '8', '--workers', '1'], false);
    // as the process maps it: its real path
    const mapped = realpathSync(library);
    while (!mapsOf(cli.process.pid!).includes(mapped) && cli.process.exitCode === null) await pause(50);
    await pause(RUN_BEFORE_ABORT_MS);
    cli.process.kill('SIGTERM');
    const { status, stdout } = await cli.ended;
    expect(status).toBe(130);
    expect(unwrapped(stdout)).toMatch(/^.*interrupted\.c\n~ locked_increments {2}partial: interrupted after [\d,]+ executions of optimal DPOR, which explores every bound at once; .*\n- after_it {2}not run \(interrupted\)\n/);
    expect(stdout).toContain(`${fixture('locked_counter.c')}\n- not run (interrupted)\n`);
  });
});

function spawnCli(args: string[], ownGroup: boolean): { process: ChildProcess; ended: Promise<{ status: number | null; stdout: string }> } {
  const cli = spawn(process.execPath, [cliPath, 'check', ...args], { cwd: packageRoot, env: { ...process.env, NO_COLOR: '1' }, detached: ownGroup });
  // a test that fails before its signal leaves no CLI running
  onTestFinished(() => {
    if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGKILL');
  });
  let stdout = '';
  cli.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  return { process: cli, ended: new Promise((resolve) => cli.on('close', (status) => resolve({ status, stdout }))) };
}

/** The files a process has mapped (the harness library, once it loaded it); empty once it ended. */
function mapsOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/maps`, 'utf8');
  } catch {
    return '';
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a C test in Vitest when Vitest aborts it', () => {
  it('stops its exploration on --bail, says what was explored, and remembers no pass', () => {
    // 4 threads × 3 locked increments at bound 8: far more than a test waits for; the
    // file "started" tells the TypeScript test that the exploration runs
    const slow = readFileSync(fixture('por/locked_increments.c'), 'utf8')
      .replace('#include <weft.h>', '#include <stdio.h>\n#include <weft.h>\n#define THREADS 4\n#define INCREMENTS 3')
      .replace('  pthread_t threads[THREADS];', '  FILE *started = fopen("started", "w");\n  if (started) fclose(started);\n  pthread_t threads[THREADS];');
    const failing = `import { existsSync } from 'node:fs';
import { expect, test, vi } from 'vitest';
test('fails while the C test explores', async () => {
  await vi.waitUntil(() => existsSync('started'), { timeout: 60000, interval: 20 });
  expect('bail out').toBe('now');
});
`;
    const project = createProject({ 'slow.test.c': slow, 'fails.test.ts': failing }, { pluginOptions: "{ maxBound: 8, mode: 'sc' }" });
    const args = ['--bail=1', '--maxWorkers=2'];
    const run = project.run(args);
    expect(run.status, run.output).toBe(1);
    // Vitest 3 shows the test's error; Vitest 4 shows every test its bail aborted as skipped
    const stopped = /stopped: Vitest aborted the test \([^)]*\); interrupted (during|after) [^\n]*\d+ executions|slow\.test\.c \(1 test \| 1 skipped\)/;
    expect(run.output).toMatch(stopped);
    // the next run explores it again (aborted again): a reused pass would say "(reused)"
    rmSync(join(project.dir, 'started'));
    const again = project.run(args);
    expect(again.status, again.output).toBe(1);
    expect(again.output).toMatch(stopped);
    expect(again.output).not.toContain('(reused)');
  });
});

