import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { compilerCommand } from '../src/compile/toolchain.js';
import { packageRoot } from '../src/paths.js';
import { unwrapped } from './support/harness.js';
import { type Watcher, createProject } from './support/vitest-project.js';

const counterHeader = (locked: boolean) => `#include <pthread.h>
static int counter;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static inline void counter_increment(void) {
  ${locked ? 'pthread_mutex_lock(&counter_lock);' : ''}
  counter++;
  ${locked ? 'pthread_mutex_unlock(&counter_lock);' : ''}
}
static inline int counter_value(void) { return counter; }
`;

const counterTest = `// weft: mode=sc
#include <pthread.h>
#include <weft.h>
#include "counter.h"

static void *bump(void *unused) {
  (void)unused;
  counter_increment();
  return NULL;
}

WEFT_TEST(two_increments) {
  pthread_t t;
  pthread_create(&t, NULL, bump, NULL);
  counter_increment();
  pthread_join(t, NULL);
  weft_assert(counter_value() == 2);
}

WEFT_TEST(one_increment) {
  counter_increment();
  weft_assert(counter_value() == 1);
}
`;

const tsTest = `import { expect, test } from 'vitest';
test('a normal TypeScript test beside the C ones', () => { expect(1 + 1).toBe(2); });
`;

describe('the weft Vitest plugin, in real Vitest processes', () => {
  let watcher: Watcher | undefined;
  afterEach(() => watcher?.stop());

  it('runs C tests beside TS tests; a bug fails the run with the counterexample and a C code frame', () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(false), 'plain.test.ts': tsTest });
    const run = project.run();
    expect(run.status).toBe(1);
    expect(run.output).toMatch(/❯ counter\.test\.c \(2 tests \| 1 failed\)/);
    expect(run.output).toMatch(/✓ one_increment/);
    expect(run.output).toContain('FAIL  counter.test.c > two_increments');
    expect(run.output).toContain('✓ plain.test.ts');
    expect(run.output).toContain('assertion failed: counter_value() == 2');
    expect(run.output).toContain('at counter.test.c:17 in thread T0 · 1 preemption');
    expect(run.output).toMatch(/replay: weft1:two_increments:sc:/);
    expect(run.output).toContain('> 17 |   weft_assert(counter_value() == 2);');
    expect(run.output).toMatch(/Tests {2}1 failed \| 2 passed/);
  });

  it('uses the per-file options comment (sc mode here: without it, drf reports a data race)', () => {
    const withoutComment = counterTest.replace('// weft: mode=sc\n', '');
    const project = createProject({ 'counter.test.c': withoutComment, 'counter.h': counterHeader(false) });
    expect(project.run().output).toContain('data race on counter');
  });

  it('runs bpor on worker processes of its own from inside a Vitest worker (workers in the options comment)', () => {
    const onWorkers = counterTest.replace('// weft: mode=sc\n', '// weft: mode=sc strategy=bpor workers=2\n');
    const project = createProject({ 'counter.test.c': onWorkers, 'counter.h': counterHeader(false) });
    const run = project.run();
    expect(run.status).toBe(1);
    expect(run.output).toContain('assertion failed: counter_value() == 2');
    expect(run.output).toContain('at counter.test.c:17 in thread T0 · 1 preemption');
    expect(run.output).toMatch(/✓ one_increment/);
  });

  it('filters C tests with -t like any other test', () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(false) });
    const run = project.run(['-t', 'one_increment']);
    expect(run.status).toBe(0);
    expect(run.output).toMatch(/Tests {2}1 passed \| 1 skipped/);
  });

  it('shows every compile error as a build failure with file:line', () => {
    const project = createProject({ 'broken.test.c': '#include <weft.h>\nWEFT_TEST(t) {\n  int x = ;\n  int y = ;\n}\n' });
    const run = project.run();
    expect(run.status).toBe(1);
    expect(run.output).toContain('FAIL  broken.test.c > build');
    expect(run.output).toContain("BuildError: broken.test.c:3:11: error: expected expression before ';' token");
    expect(run.output).toContain("broken.test.c:4:11: error: expected expression before ';' token");
    expect(run.output).not.toContain('InterleavingError');
    expect(run.output).toContain('> 3 |   int x = ;');
  });

  it('points a build error without a source location (a refused flag) at the C file, not at generated code', () => {
    const project = createProject({ 'flags.test.c': '// weft: cflags="-fno-sanitize=thread"\n#include <weft.h>\nWEFT_TEST(t) {}\n' });
    const run = project.run();
    expect(run.status).toBe(1);
    expect(run.output).toContain('FAIL  flags.test.c > build');
    expect(run.output).toContain("the flag '-fno-sanitize=thread' would change the instrumentation");
    expect(run.output).toContain('> 1 | // weft: cflags="-fno-sanitize=thread"');
  });

  it('shows a bad options comment as a failing build test at its line', () => {
    const project = createProject({ 'options.test.c': '#include <weft.h>\n// weft: maxBound=two\nWEFT_TEST(t) {}\n' });
    const run = project.run();
    expect(run.status).toBe(1);
    expect(run.output).toContain('FAIL  options.test.c > build');
    expect(run.output).toContain("options.test.c:2: maxBound needs a whole number from 0 to 10,000 or unbounded, got 'two'");
    expect(run.output).toContain('❯ options.test.c:2:1');
  });

  it("carries the counterexample in Vitest's JSON reporter (for CI)", () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(false) });
    const run = project.run(['--reporter=json', '--outputFile=report.json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'));
    const failed = report.testResults[0].assertionResults.find((test: { title: string }) => test.title === 'two_increments');
    expect(failed.status).toBe('failed');
    expect(failed.failureMessages.join('\n')).toContain('assertion failed: counter_value() == 2');
  });

  it('in watch mode re-runs after a header edit, replaying the last counterexample first', async () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(false) });
    watcher = project.watch();
    await watcher.waitFor(/Tests {2}1 failed \| 1 passed/);
    const mark = watcher.output.length;
    project.write('counter.h', counterHeader(true));
    const rerun = await watcher.waitFor(/Tests {2}2 passed/, mark);
    expect(unwrapped(rerun)).toContain('two_increments: the last counterexample no longer replays on the changed code — re-verifying all interleavings');
  });

  it('in watch mode explores a passing test again when a header it includes changes, though Vite keeps the module', async () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(true) });
    // the plugin's build goes into the module, and the worker must not trust it after the edit
    watcher = project.watch();
    await watcher.waitFor(/Tests {2}2 passed/);
    const mark = watcher.output.length;
    project.write('counter.h', counterHeader(false));
    await watcher.waitFor(/Tests {2}1 failed \| 1 passed/, mark);
  });

  it('in watch mode re-runs a file that failed to build once the header holding the error is fixed', async () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': `${counterHeader(true)}\nint broken = ;\n` });
    watcher = project.watch();
    await watcher.waitFor(/FAIL {2}counter\.test\.c > build[\s\S]*Tests {2}1 failed/);
    const mark = watcher.output.length;
    project.write('counter.h', counterHeader(true));
    await watcher.waitFor(/Tests {2}2 passed/, mark);
  });

  it('in watch mode compiles a file saved with a compile error once, not again for the module and its worker', async () => {
    const compilations = join(mkdtempSync(join(tmpdir(), 'weft-cc-')), 'compilations');
    const compiler = join(dirname(compilations), 'cc');
    writeFileSync(compiler, `#!/bin/sh\ncase "$*" in *counter.test.c*) echo "$*" >> '${compilations}';; esac\nexec ${compilerCommand()} "$@"\n`, { mode: 0o755 });
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(true) }, { env: { CC: compiler } });
    watcher = project.watch();
    await watcher.waitFor(/Tests {2}2 passed/);
    const before = readFileSync(compilations, 'utf8').split('\n').length;
    const mark = watcher.output.length;
    project.write('counter.test.c', counterTest.replace('return NULL;', 'return NULL'));
    await watcher.waitFor(/FAIL {2}counter\.test\.c > build[\s\S]*Tests {2}1 failed/, mark);
    expect(readFileSync(compilations, 'utf8').split('\n').length - before).toBe(1);
  });
});

describe("weft's runtime in Vitest's workers", () => {
  it('is compiled once with V8 code cache: the first run writes it (and removes stale ones), later runs use it, and one that is corrupt or writable by others is replaced', () => {
    // reuse off: every run explores, so every worker loads the runtime
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(true) }, { pluginOptions: '{ maxBound: 2, reuse: false }' });
    const codeCache = join(project.dir, '.cache', 'code-cache');
    // before any counterexample: the cache of a worker whose tests passed
    const cached = () => {
      const files = readdirSync(codeCache);
      expect(files).toHaveLength(1);
      const file = join(codeCache, files[0]!);
      return { file, size: statSync(file).size, mtimeMs: statSync(file).mtimeMs };
    };
    const passes = () => expect(project.run(['--no-cache'])).toMatchObject({ status: 0, output: expect.stringMatching(/Tests {2}2 passed/) });
    // caches of other builds: one written 40 days ago goes when a cache is written, a recent one stays
    mkdirSync(codeCache, { recursive: true, mode: 0o700 });
    const [stale, recent] = ['stale', 'recent'].map((name) => join(codeCache, `vitest-runtime-${name}.bin`)) as [string, string];
    writeFileSync(stale, '');
    writeFileSync(recent, '');
    utimesSync(stale, new Date(Date.now() - 40 * 86_400_000), new Date(Date.now() - 40 * 86_400_000));
    passes();
    expect([existsSync(stale), existsSync(recent)]).toEqual([false, true]);
    rmSync(recent);
    // a cache V8 accepts is not written again; one it rejects, or one not used, is
    const keptBy = (run: () => void) => {
      const before = cached();
      run();
      return cached().mtimeMs === before.mtimeMs;
    };
    expect(keptBy(passes)).toBe(true);
    const { file } = cached();
    writeFileSync(file, 'not V8 code cache');
    expect(keptBy(passes)).toBe(false);
    expect(cached().size).toBeGreaterThan(1000);
    expect(keptBy(passes)).toBe(true);
    chmodSync(file, 0o666);
    expect(keptBy(passes)).toBe(false);
    expect(statSync(file).mode & 0o022).toBe(0);
    // a worker that showed a counterexample writes a fuller cache, which later workers load
    project.write('counter.h', counterHeader(false));
    expect(project.run(['--no-cache'])).toMatchObject({ status: 1, output: expect.stringMatching(/Tests {2}1 failed \| 1 passed/) });
    const files = readdirSync(codeCache).sort();
    expect(files).toEqual([expect.stringMatching(/-full\.bin$/), expect.stringMatching(/-partial\.bin$/)]);
    const full = statSync(join(codeCache, files[0]!));
    expect(full.size).toBeGreaterThan(statSync(file).size);
    project.run(['--no-cache']);
    expect(statSync(join(codeCache, files[0]!)).mtimeMs).toBe(full.mtimeMs);
  });

  it('is not loaded by a worker whose tests all passed before with the same build: a corrupt code cache stays until a test has to run', () => {
    const project = createProject({ 'counter.test.c': counterTest, 'counter.h': counterHeader(true) });
    const codeCache = join(project.dir, '.cache', 'code-cache');
    expect(project.run()).toMatchObject({ status: 0, output: expect.stringMatching(/Tests {2}2 passed/) });
    const [file] = readdirSync(codeCache).map((name) => join(codeCache, name));
    writeFileSync(file!, 'not V8 code cache');
    const reused = project.run();
    expect(reused).toMatchObject({ status: 0, output: expect.stringMatching(/Tests {2}2 passed/) });
    expect(reused.output).toMatch(/weft: 2 C tests passed as verified earlier with this build and options/);
    expect(readFileSync(file!, 'utf8')).toBe('not V8 code cache');
    // an edit that breaks a test: that worker explores, so it loads the runtime (and writes the fuller cache)
    project.write('counter.h', counterHeader(false));
    expect(project.run()).toMatchObject({ status: 1, output: expect.stringMatching(/Tests {2}1 failed \| 1 passed/) });
    const full = readdirSync(codeCache).find((name) => name.endsWith('-full.bin'));
    expect(full && statSync(join(codeCache, full)).size).toBeGreaterThan(1000);
  });
});

describe('the example project', () => {
  it('examples/lock-free-stack passes its C and TypeScript tests in a real Vitest run', () => {
    const run = spawnSync(process.execPath, [join(packageRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
      cwd: join(packageRoot, 'examples', 'lock-free-stack'), encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '1' }, timeout: 120_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toContain('✓ stack.test.c (2 tests)');
    expect(output).toContain('✓ stack.test.ts (2 tests)');
  });
});
