// Whatever the command line holds, weft answers with results or one clear message and
// exit 2 — never a crash, never a file left unreported.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { fixture, runCli, writeHarness } from '../support/harness.js';

describe('several files, some unusable', () => {
  const broken = writeHarness('int main(void) { return 0 }\n', 'broken.c');
  const buggy = fixture('lost_update.c');

  it('reports every file, the unusable one as an error, and exits with the worst status', () => {
    const run = runCli(['check', broken, buggy, '--json']);
    expect(run.status).toBe(2);
    const { files } = JSON.parse(run.stdout);
    expect(files).toHaveLength(2);
    expect(files[0]).toMatchObject({ file: broken, tests: [], error: expect.stringContaining("expected ';'"), code: 'compile' });
    expect(files[1].tests[0]).toMatchObject({ status: 'fail', bug: { kind: 'race' } });
  });

  it('prints the bug of the good file after the error of the bad one', () => {
    const run = runCli(['check', broken, buggy]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/broken\.c:1:\d+: error/);
    expect(run.stdout).toMatch(/data race/);
  });
});

describe('numbers and replay strings are validated', () => {
  it.each(['99999999999999999999', '1e3', '-1'])('--max-bound %s is refused with one message', (value) => {
    const run = runCli(['check', fixture('lost_update.c'), '--max-bound', value]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^weft: --max-bound needs a whole number from 0 to 10,000 or unbounded, got '?[-\de]+'?\nweft check --help lists the options\n$/);
  });

  it('a replay string asking for more decisions than any execution has is refused, without a crash', () => {
    const huge = `weft1:main:drf:${Array.from({ length: 600 }, () => '0*1000000').join('.')}`;
    const run = runCli(['replay', fixture('lost_update.c'), '--schedule', huge]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^weft: not a weft replay string \(more than 262,144 decisions\)/);
  });
});

describe('budgets', () => {
  it('a time budget is checked by the clock after every run, however long the runs', () => {
    const dir = writeHarness('', 'unused.c');
    const file = join(dir, '..', 'long_runs.c');
    // every execution takes thousands of steps and there are far too many to finish
    writeFileSync(file, `#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int x;
static void *work(void *unused) { (void)unused; for (int i = 0; i < 3000; i++) atomic_fetch_add(&x, 1); return NULL; }
WEFT_TEST(long_runs) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
}
`);
    const run = runCli(['check', file, '--strategy', 'dfs', '--max-bound', '3', '--time-budget-ms', '300', '--json']);
    const test = JSON.parse(run.stdout).tests[0];
    expect(test).toMatchObject({ status: 'pass', complete: false });
    expect(test.guarantee).toMatch(/budget/);
    // generous: a whole second of slack over a 0.3 s budget (the old count-based check overran by 4x and more)
    expect(test.elapsedMs).toBeLessThan(1300);
  });
});

describe('a harness bigger than weft explores', () => {
  it('more threads than the limit is input weft cannot explore (exit 2, naming the limit), not a bug in the program', () => {
    const file = writeHarness(`#include <pthread.h>
#include <weft.h>
static void *work(void *unused) { return unused; }
WEFT_TEST(main_and_256_threads) {
  pthread_t threads[256];
  for (int i = 0; i < 256; i++) pthread_create(&threads[i], 0, work, 0);
  for (int i = 0; i < 256; i++) pthread_join(threads[i], 0);
}
`, 'main_and_256_threads.c');
    const run = runCli(['check', file, '--json']);
    expect(run.status).toBe(2);
    const test = JSON.parse(run.stdout).tests[0];
    expect(test).toMatchObject({ status: 'error', error: expect.stringMatching(/more than 256 threads \(main included\): weft explores at most 256/) });
  });
});
