// The plugin's result memory in real Vitest processes: a failing test remembers the
// counterexample it reported and reports it again the same way; passes are reused
// quietly; parallel workers lose nothing.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { libraryTests } from '../src/compile/cache.js';
import { fixture } from './support/harness.js';
import { type Watcher, createProject, testsInReport, withJsonReport } from './support/vitest-project.js';

const STILL_FAILS = 'still fails (replayed the last counterexample)';

/** Every failing test of fixtures/vitest/every_bug_kind.test.c and what its report says. */
const bugKinds: Record<string, string[]> = {
  race_with_consequence: ['data race on balance', 'what the race breaks', 'assertion failed: balance == 0'],
  race_alone: ['data race on flag'],
  assertion: ['assertion failed: atomic_load(&hits) == 2'],
  deadlock: ['deadlock: wait-for cycle'],
  crash: ['crash: SIGSEGV'],
  memory_error: ['memory: '],
  livelock: ['livelock: no progress'],
  misuse: ['misuse: '],
};

/** fixtures/robustness/endless_local_loop.c with a short watchdog: a hang */
const hangTest = 'loops_without_a_shared_access';


describe('the result memory of the Vitest plugin', () => {
  let watcher: Watcher | undefined;
  afterEach(() => watcher?.stop());

  it('reports every kind of bug again exactly as the first run did, plus "still fails" (vitest run twice, then a watch-mode save)', async () => {
    const source = readFileSync(fixture('vitest/every_bug_kind.test.c'), 'utf8');
    const hang = `// weft: hangTimeoutMs=200\n${readFileSync(fixture('robustness/endless_local_loop.c'), 'utf8')}`;
    const project = createProject({ 'bugs.test.c': source, 'hang.test.c': hang });
    const first = project.run(withJsonReport);
    expect(first.status, first.output).toBe(1);
    const firstTests = testsInReport(project);
    // the code frame under the data race is the racy access, not the assertion it breaks
    expect(first.output).toContain('> 12 |   balance = balance - 50;');

    const second = project.run(withJsonReport);
    expect(second.status, second.output).toBe(1);
    const secondTests = testsInReport(project);
    for (const [name, phrases] of Object.entries({ ...bugKinds, [hangTest]: ['hang: T1 ran for more than 200 ms'] })) {
      const before = firstTests.get(name)!;
      const after = secondTests.get(name)!;
      expect(before.status, name).toBe('failed');
      for (const phrase of phrases) expect(before.failure, name).toContain(phrase);
      expect(before.failure, name).not.toContain(STILL_FAILS);
      // kind, message, location, both accesses, consequence, trace and replay string: all equal
      // (raw heap addresses excepted: they differ from process to process)
      const withoutAddresses = (text: string) => text.replace(/0x[0-9a-f]{6,}/g, '0x…');
      expect(withoutAddresses(after.failure.replace(`${STILL_FAILS}\n`, '')), name).toBe(withoutAddresses(before.failure));
      expect(after.failure, name).toContain(STILL_FAILS);
    }

    watcher = project.watch();
    await watcher.waitFor(/Tests {2}9 failed/);
    const mark = watcher.output.length;
    project.write('bugs.test.c', `${source}\n// saved again\n`);
    const rerun = await watcher.waitFor(/Tests {2}9 failed/, mark);
    const sections = rerun.split(/FAIL {2}bugs\.test\.c > /).slice(1);
    expect(sections.map((section) => section.split(/\s/)[0]).sort()).toEqual(Object.keys(bugKinds).sort());
    for (const section of sections) expect(section).toContain(STILL_FAILS);
    expect(rerun).toContain('data race on balance');
    expect(rerun).toContain('what the race breaks');
  });

  it('says when the remembered counterexample now fails differently, then reports what a fresh exploration finds', () => {
    const harness = (assertion: string) => `#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int hits;
static void *hit(void *unused) {
  (void)unused;
  atomic_store(&hits, atomic_load(&hits) + 1);
  return NULL;
}
WEFT_TEST(lost_hit) {
  pthread_t t;
  pthread_create(&t, NULL, hit, NULL);
  hit(NULL);
  pthread_join(t, NULL);
  weft_assert(${assertion});
}
`;
    const project = createProject({ 'hits.test.c': harness('atomic_load(&hits) == 2') });
    expect(project.run().output).toContain('assertion failed: atomic_load(&hits) == 2');

    project.write('hits.test.c', harness('atomic_load(&hits) > 1'));
    const changed = project.run(withJsonReport);
    expect(changed.status).toBe(1);
    const failure = testsInReport(project).get('lost_hit')!.failure;
    expect(failure).toContain('the remembered counterexample now fails differently: assertion failed: atomic_load(&hits) > 1');
    expect(failure).toContain('at hits.test.c:15 in thread T0');
    expect(failure).not.toContain(STILL_FAILS);

    project.write('hits.test.c', harness('atomic_load(&hits) >= 1'));
    const fixed = project.run();
    expect(fixed.status, fixed.output).toBe(0);
    expect(fixed.output).toContain('lost_hit: fixed — re-verifying all interleavings');
  });

  it('keeps every result when parallel workers run many C tests at once, and reuses them with one summary line', () => {
    const files: Record<string, string> = {};
    for (let file = 0; file < 6; file++) {
      const tests = Array.from({ length: 4 }, (_, test) => `
WEFT_TEST(increments_${test}) {
  pthread_t t;
  pthread_create(&t, NULL, bump, NULL);
  bump(NULL);
  pthread_join(t, NULL);
  weft_assert(counter == 2 * ${test + 1} - 2 * ${test});
  counter = 0;
}`).join('\n');
      files[`counter${file}.test.c`] = `#include <pthread.h>
#include <weft.h>
static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *bump(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  counter += ${file + 1} - ${file};
  pthread_mutex_unlock(&lock);
  return NULL;
}
${tests}
`;
    }
    const project = createProject(files);
    const cold = project.run(['--pool=forks', '--maxWorkers=2']);
    expect(cold.status, cold.output).toBe(0);
    expect(cold.output).toMatch(/Tests {2}24 passed/);
    for (let file = 0; file < 6; file++) expect(cold.output).toContain(`weft: compiling counter${file}.test.c`);
    const remembered = readdirSync(join(project.dir, '.cache', 'last-results')).filter((name) => name.endsWith('.json'));
    expect(remembered).toHaveLength(24);
    for (const name of remembered)
      expect(JSON.parse(readFileSync(join(project.dir, '.cache', 'last-results', name), 'utf8'))).toHaveProperty('pass');
    // what each library declares is written beside it: the next run's modules carry it, and
    // a reused pass loads no library
    const libraries = readdirSync(join(project.dir, '.cache'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.so'));
    expect(libraries).toHaveLength(6);
    for (const library of libraries)
      expect(libraryTests(join(project.dir, '.cache', library))?.map((test) => test.name)).toEqual(['increments_0', 'increments_1', 'increments_2', 'increments_3']);

    const warm = project.run(['--pool=forks', '--maxWorkers=2']);
    expect(warm.status, warm.output).toBe(0);
    expect(warm.output).toMatch(/Tests {2}24 passed/);
    // one line, wrapped to 100 columns (the project's path, in Vitest's RUN line, may name weft too)
    const weftLines = warm.output.split('\n').filter((line) => line.replaceAll(project.dir, '').includes('weft'));
    expect(weftLines).toEqual(['weft: 24 C tests passed as verified earlier with this build and options (weft({ reuse: false })']);
    expect(warm.output).toContain(`${weftLines[0]}\n  explores them again)\n`);
    expect(warm.output).not.toContain('stdout |');
  });

  it('keeps what each test did in the cacheDirectory the plugin is given, beside the builds', () => {
    const project = createProject({ 'counter.test.c': readFileSync(fixture('locked_counter.c'), 'utf8') }, { pluginOptions: "{ maxBound: 2, cacheDirectory: 'weft-cache' }" });
    const first = project.run();
    expect(first.status, first.output).toBe(0);
    expect(readdirSync(join(project.dir, 'weft-cache', 'last-results')).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    const second = project.run();
    expect(second.output).toContain('weft: 1 C test passed as verified earlier');
  });
});
