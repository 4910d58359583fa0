// C tests beside TypeScript tests in Vitest (issue: C tests at the speed of TypeScript tests):
// a suite of 20 files x 3 small tests run cold and warm, and the watch loop (save -> verdict)
// in a real Vitest under a pseudo-terminal (script(1)), each beside the same measurement for
// TypeScript tests. Both suites live in a fresh project where the packed package is installed,
// with the README's config (vitest.config.mts, weft imported from 'weft/vitest'): what a
// user's project runs. Real processes, wall-clock medians; the machine's load shows in them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { installPacked, repositoryVitestVersion } from '../test/support/packed-package.js';
import { Watcher } from '../test/support/watcher.js';
import { printTable } from './table.js';

const FILES = Number(process.env.BENCH_FILES ?? 20);
const EDITS = Number(process.env.BENCH_EDITS ?? 11);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** the Vitest to measure (BENCH_VITEST_VERSION; default: the repository's) */
const vitestVersion = process.env.BENCH_VITEST_VERSION ?? repositoryVitestVersion();

const cTest = (file: number, test: number, broken = false) => `
static int counter_${test};
static pthread_mutex_t lock_${test} = PTHREAD_MUTEX_INITIALIZER;
static void *add_${test}(void *unused) {
  pthread_mutex_lock(&lock_${test});
  counter_${test} += ${file + 1};
  pthread_mutex_unlock(&lock_${test});
  return unused;
}
WEFT_TEST(counter_${test}) {
  pthread_t a, b;
  pthread_create(&a, 0, add_${test}, 0);
  pthread_create(&b, 0, add_${test}, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  weft_assert(counter_${test} == ${broken ? 1 : 2 * (file + 1)});
}
`;
const cFile = (file: number, broken = false) =>
  `#include <pthread.h>\n#include <weft.h>\n#include "shared.h"\n${[0, 1, 2].map((test) => cTest(file, test, broken && test === 0)).join('')}`;
const tsFile = (file: number, broken = false) => `import { expect, it } from 'vitest';
import { shared } from './shared';
${[0, 1, 2].map((test) => `it('sum ${test}', () => { expect([${file}, ${test}, shared].reduce((a, b) => a + b, 0)).toBe(${broken && test === 0 ? -1 : file + test + 1}); });`).join('\n')}
`;

interface Suite {
  dir: string;
  /** the Vitest of the project the suite lives in */
  vitest: string;
  file(index: number): string;
  header: string;
  write(name: string, text: string): void;
}

/** A suite inside `project`, where the packed package and the Vitest to measure are installed. */
function createSuite(project: string, kind: 'c' | 'ts', files: number): Suite {
  const dir = mkdtempSync(join(project, `bench-${kind}-`));
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
  write('vitest.config.mts', kind === 'c'
    ? `import { defineConfig } from 'vitest/config';\nimport weft from 'weft/vitest';\nexport default defineConfig({ plugins: [weft({ maxBound: 2 })] });\n`
    : `import { defineConfig } from 'vitest/config';\nexport default defineConfig({});\n`);
  const header = kind === 'c' ? 'shared.h' : 'shared.ts';
  write(header, kind === 'c' ? '#define SHARED 1\n' : 'export const shared = 1;\n');
  const file = (index: number) => (kind === 'c' ? `file${index}.test.c` : `file${index}.test.ts`);
  for (let i = 0; i < files; i++) write(file(i), kind === 'c' ? cFile(i) : tsFile(i));
  return { dir, vitest: join(project, 'node_modules', 'vitest', 'vitest.mjs'), file, header, write };
}

const environment = (suite: Suite) => ({ ...process.env, NO_COLOR: '1', CI: '1', WEFT_CACHE_DIR: join(suite.dir, '.cache') });

interface Run {
  seconds: number;
  lines: number;
}

function runSuite(suite: Suite): Run {
  const started = performance.now();
  const result = spawnSync(process.execPath, [suite.vitest, 'run'], { cwd: suite.dir, encoding: 'utf8', env: environment(suite), timeout: 300_000 });
  const seconds = (performance.now() - started) / 1000;
  const output = `${result.stdout}${result.stderr}`;
  return { seconds, lines: output.split('\n').filter((line) => line.trim() !== '').length };
}

/** Vitest in watch mode inside a pseudo-terminal (script(1)), as a user runs it. */
function watchInTerminal(suite: Suite): Watcher {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(suite.vitest)} --watch`;
  return new Watcher(spawn('script', ['-qfec', command, '/dev/null'], { cwd: suite.dir, env: { ...environment(suite), CI: '' } }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface WatchTimes {
  breaks: number[];
  fixes: number[];
  header: number[];
}

/** A suite of one file under Vitest's watch mode, and the edits measured on it. */
async function startWatching(project: string, kind: 'c' | 'ts') {
  const suite = createSuite(project, kind, 1);
  const watched = watchInTerminal(suite);
  const failed = /Tests\s+1 failed[\s\S]*(Waiting|Watching) for file changes/;
  const passed = /Tests\s+3 passed[\s\S]*(Waiting|Watching) for file changes/;
  const times: WatchTimes = { breaks: [], fixes: [], header: [] };
  await watched.waitFor(passed, 0);
  const measure = async (edit: () => void, pattern: RegExp) => {
    const from = watched.output.length;
    const started = performance.now();
    edit();
    await watched.waitFor(pattern, from);
    return (performance.now() - started) / 1000;
  };
  return {
    times,
    /** One round: a breaking edit, the fix, and an edit of the header (or module) the test includes. */
    async round(index: number) {
      times.breaks.push(await measure(() => suite.write(suite.file(0), kind === 'c' ? cFile(0, true) : tsFile(0, true)), failed));
      times.fixes.push(await measure(() => suite.write(suite.file(0), kind === 'c' ? cFile(0) : tsFile(0)), passed));
      const header = kind === 'c' ? `#define SHARED ${index + 2}\n` : `export const shared = 1; // ${index}\n`;
      times.header.push(await measure(() => suite.write(suite.header, header), passed));
    },
    stop() {
      watched.stop();
      rmSync(suite.dir, { recursive: true, force: true });
    },
  };
}

/**
 * Save -> verdict times (s) of C and TypeScript tests, round by round in turn (while one
 * measures, the other's Vitest waits idle): the machine's load falls on both alike.
 */
async function watchLoops(project: string): Promise<{ c: WatchTimes; ts: WatchTimes }> {
  const c = await startWatching(project, 'c');
  try {
    const ts = await startWatching(project, 'ts');
    try {
      for (let index = 0; index < EDITS; index++) {
        await c.round(index);
        await ts.round(index);
      }
      return { c: c.times, ts: ts.times };
    } finally {
      ts.stop();
    }
  } finally {
    c.stop();
  }
}

export async function vitestBench(): Promise<void> {
  const project = mkdtempSync(join(tmpdir(), 'weft-bench-vitest-'));
  try {
    await installPacked(project, vitestVersion);
    await measure(project);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

async function measure(project: string): Promise<void> {
  const rows: (string | number)[][] = [];
  const suites = { c: createSuite(project, 'c', FILES), ts: createSuite(project, 'ts', FILES) };
  try {
    // C and TypeScript runs alternate, so that the machine's load falls on both alike, and
    // which goes first alternates by round, so that neither always runs right after the other
    const runs = { cold: { c: [] as Run[], ts: [] as Run[] }, warm: { c: [] as Run[], ts: [] as Run[] } };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['c', 'ts'] as const) : (['ts', 'c'] as const);
      for (const kind of order) {
        rmSync(join(suites[kind].dir, '.cache'), { recursive: true, force: true });
        runs.cold[kind].push(runSuite(suites[kind]));
      }
      for (const kind of order) runs.warm[kind].push(runSuite(suites[kind]));
    }
    for (const [name, measured] of Object.entries(runs)) {
      const c = median(measured.c.map((run) => run.seconds));
      const ts = median(measured.ts.map((run) => run.seconds));
      const lines = { c: median(measured.c.map((run) => run.lines)), ts: median(measured.ts.map((run) => run.lines)) };
      rows.push([`vitest run, ${FILES} files x 3 tests, ${name} (s, median of ${ROUNDS})`, c, ts, c / ts]);
      rows.push([`  output lines, ${name}`, lines.c, lines.ts, lines.c - lines.ts]);
    }
  } finally {
    for (const suite of Object.values(suites)) rmSync(suite.dir, { recursive: true, force: true });
  }
  const watched = await watchLoops(project);
  const measures: [keyof WatchTimes, string][] = [['breaks', `breaking edit (s, median of ${EDITS})`], ['fixes', 'the fix (s)'], ['header', 'included header edited (s)']];
  for (const [key, label] of measures) {
    const c = median(watched.c[key]);
    const ts = median(watched.ts[key]);
    rows.push([`watch: save -> verdict, ${label}`, c, ts, c / ts]);
  }
  const version = (JSON.parse(readFileSync(join(project, 'node_modules', 'vitest', 'package.json'), 'utf8')) as { version: string }).version;
  printTable(`Vitest ${version}, the packed package installed: C tests beside TypeScript tests (ratio: C / TypeScript; lines: C minus TypeScript)`, ['measure', 'C', 'TypeScript', 'ratio'], rows);
}
