// What the modules the plugin generates for C test files call, inside Vitest's workers:
// list a file's tests, and run one of them as a Vitest test.
import { readFileSync } from 'node:fs';

import { BuildError } from '../build/errors.js';
import { buildHarness } from '../build/compile.js';
import { type CheckOptions, type TestResult, checkAllInterleavings } from '../check.js';
import { borrowHarness, returnHarness } from '../native/harness-pool.js';
import { defaults } from '../options.js';
import { renderBug } from '../report/render.js';
import { forgetFailure, recallFailure, rememberFailure, rememberPass, recallPass } from './last-results.js';

/** The tests of a C file, in source order (builds it: cached). */
export function listTests(file: string, options: CheckOptions): string[] {
  const built = buildHarness(file, options);
  const harness = borrowHarness(built.library);
  returnHarness(built.library, harness); // listing only: free for the checks that follow
  return harness.tests().sort((a, b) => a.line - b.line).map((test) => test.name);
}

/** A test failure whose stack and code frame point at the C source. */
export class InterleavingError extends Error {
  frame?: string;
  constructor(message: string, file?: string, line?: number, testName = 'weft') {
    super(message);
    this.name = 'InterleavingError';
    if (file && line) {
      this.stack = `${this.name}: ${message}\n    at ${testName} (${file}:${line}:1)`;
      const frame = codeFrame(file, line);
      if (frame) this.frame = frame;
    }
  }
}

export function codeFrame(file: string, line: number): string | undefined {
  let source: string[];
  try {
    source = readFileSync(file, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const first = Math.max(1, line - 2);
  const last = Math.min(source.length, line + 2);
  const width = String(last).length;
  const rows: string[] = [];
  for (let n = first; n <= last; n++) rows.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${source[n - 1]}`);
  return rows.join('\n');
}

export function buildErrorToTestError(error: unknown, file: string): unknown {
  if (!(error instanceof BuildError)) return error;
  const location = error.location;
  return new InterleavingError(error.message, location ? resolveFrom(file, location.file) : undefined, location?.line, 'build');
}

function resolveFrom(testFile: string, reported: string): string {
  return reported.startsWith('/') ? reported : `${process.cwd()}/${reported}`.replace(/\/\.\//g, '/') || testFile;
}

/**
 * Runs one C test under weft. A test that failed last time replays its counterexample
 * first ("still fails", or "fixed — re-verifying"); a test that passed with the same
 * library and options is not explored again.
 */
export async function runTest(file: string, name: string, options: CheckOptions): Promise<TestResult> {
  const built = buildHarness(file, options);
  const key = JSON.stringify({ file, name, options });
  const lastFailure = recallFailure(key);
  if (lastFailure) {
    const replayed = (await checkAllInterleavings(file, { ...options, test: name, replay: lastFailure })).tests[0]!;
    if (replayed.status === 'fail') throw failureError(file, name, replayed, 'still fails (replayed the last counterexample)');
    console.info(`weft: ${name}: fixed — re-verifying all interleavings`);
    forgetFailure(key);
  }
  if (recallPass(key) === built.hash) {
    console.info(`weft: ${name}: unchanged build and options, reusing the last passing result`);
    return { name, status: 'pass', executions: 0, redundantRuns: 0, bound: 0, complete: false, elapsedMs: 0, strategy: options.strategy ?? defaults.strategy, guarantee: 'reused: same build and options as the last passing run' };
  }
  const result = (await checkAllInterleavings(file, { ...options, test: name, onProgress: progressReporter(name) })).tests[0]!;
  if (result.status === 'error') throw new InterleavingError(result.error ?? 'the harness could not be explored');
  if (result.status === 'fail') {
    rememberFailure(key, (result.bug!.consequence ?? result.bug!).schedule);
    throw failureError(file, name, result);
  }
  rememberPass(key, built.hash);
  return result;
}

const PROGRESS_EVERY_MS = 2000;

/** Long explorations say how far they got, every couple of seconds, in the test's output. */
function progressReporter(name: string): CheckOptions['onProgress'] {
  let next = PROGRESS_EVERY_MS;
  return ({ bound, executions, elapsedMs }) => {
    if (elapsedMs < next) return;
    next = elapsedMs + PROGRESS_EVERY_MS;
    const rate = Math.round(executions / (elapsedMs / 1000));
    console.info(`weft: ${name}: bound ${bound} · ${executions.toLocaleString('en-US')} executions · ${rate.toLocaleString('en-US')}/s`);
  };
}

function failureError(file: string, name: string, result: TestResult, note?: string): InterleavingError {
  const bug = result.bug!;
  const headline = `${note ? `${note}\n` : ''}${renderBug(bug, { color: false })}`;
  const location = bug.consequence?.location ?? bug.location;
  return new InterleavingError(headline, location ? resolveFrom(file, location.file) : undefined, location?.line, name);
}
