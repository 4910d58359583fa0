// What the modules the plugin generates for C test files call, inside Vitest's workers:
// list a file's tests, and run one of them as a Vitest test.
import { readFileSync } from 'node:fs';

import { type LibraryTest, recordLibraryTests } from '../compile/cache.js';
import { BuildError, type BuildErrorCode, type SourceLocation } from '../compile/errors.js';
import type { LibraryBuild } from '../compile/compile.js';
import type { CheckOptions, TestResult } from '../check.js';
import type { Bug, BugLocation } from '../report/bug.js';
import { type BugSignature, resultMemory, sameBug, signature } from './last-results.js';
import { type ShardPart, type WeftMeta, incompleteFailure, passedWith, reportReused } from './reuse.js';
import { withThousands } from '../numbers.js';
import { worthSaying } from '../report/estimate.js';
import { fitLine } from '../report/wrap.js';

/**
 * The explorer and the renderer, loaded only when a test is explored: a test whose pass is
 * reused (most of a warm run, each file in a fresh worker) needs neither.
 */
const explorer = () => import('../check.js');
/** The build and the native loader: needed to list a library's tests the plugin does not know, not for a reused pass. */
const builder = () => import('../compile/compile.js');
const harnessPool = () => import('../addon/harness-pool.js');
const renderer = () => import('../report/render.js');
/** What a shard's guarantee says: loaded only under the option shard. */
const merging = () => import('../report/merge.js');

/** The tests of a C file, in source order, with their lines (builds it unless given its build, and loads it). */
export async function listTests(file: string, options: CheckOptions, made?: LibraryBuild): Promise<LibraryTest[]> {
  const built = made ?? (await builder()).buildHarness(file, options);
  const { borrowHarness, returnHarness } = await harnessPool();
  const harness = borrowHarness(built.library);
  returnHarness(built.library, harness); // listing only: free for the checks that follow
  const tests = harness.tests().sort((a, b) => a.line - b.line).map(({ name, line }) => ({ name, line }));
  // the plugin writes them into the test module next time: a reused pass loads no library
  recordLibraryTests(built.library, tests);
  return tests;
}

/** A test failure whose stack and code frame point at the C source. */
class CSourceError extends Error {
  frame?: string;
  constructor(name: string, message: string, file?: string, locations: readonly BugLocation[] = [], testName = 'weft') {
    super(message);
    this.name = name;
    const [first] = locations;
    if (file && first) {
      // every location is a stack frame (a data race: both accesses); the first is the code frame
      this.stack = `${this.name}: ${message}\n${locations.map((location) => `    at ${testName} (${resolveFrom(file, location.file)}:${location.line}:1)`).join('\n')}`;
      const frame = codeFrame(resolveFrom(file, first.file), first.line);
      if (frame) this.frame = frame;
    }
  }
}

/** A bug found (or an exploration that could not claim what was asked), shown at the C source. */
export class InterleavingError extends CSourceError {
  constructor(message: string, file?: string, locations: readonly BugLocation[] = [], testName = 'weft') {
    super('InterleavingError', message, file, locations, testName);
  }
}

/** A C test file that did not build (every compiler error in the message), shown at the first error. */
export class HarnessBuildError extends CSourceError {
  constructor(message: string, file: string, location: BugLocation) {
    super('BuildError', message, file, [location], 'build');
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

/** A build the plugin tried and that failed, as the error it threw: the worker does not build again. */
export function failedBuild({ code, message, location }: { code: BuildErrorCode; message: string; location?: SourceLocation }): BuildError {
  return new BuildError(code, message, location);
}

export function buildErrorToTestError(error: unknown, file: string): unknown {
  if (!(error instanceof BuildError)) return error;
  // without a location of its own (a link or toolchain error), the error is the file's
  return new HarnessBuildError(error.message, file, error.location ?? { file, line: 1 });
}

function resolveFrom(testFile: string, reported: string): string {
  return reported.startsWith('/') ? reported : `${process.cwd()}/${reported}`.replace(/\/\.\//g, '/') || testFile;
}

let shown = false;

/** Whether this worker showed a counterexample (and so compiled the explorer and the renderer): its code cache is the full one. */
export const counterexampleShown = () => shown;

/** How the plugin runs C tests (its own options, beside the CheckOptions). */
export interface RunSettings {
  /** reuse the last passing result of an unchanged build with the same options (default true) */
  reuse: boolean;
  /** the WEFT_TEST's line: where errors without a location of their own point */
  line: number;
  /** the plugin's build of the file, while the files it read are unchanged (else it is built here) */
  built?: LibraryBuild;
}

interface TaskContext {
  task: { meta: object };
  /** aborted when Vitest cancels the run (Ctrl-C or Esc in watch mode, --bail) or the test times out */
  signal?: AbortSignal;
}

/**
 * Runs one C test under weft. A test that failed last time replays its counterexample
 * first ("still fails", or "fixed — re-verifying"); a test that passed with the same
 * library and options is not explored again. Under the option shard (a Vitest shard's part
 * of the exploration, plugin option shardExplorations) the part goes into the test's meta
 * for `vitest --merge-reports` (shard-merge.ts), and nothing is recalled or remembered: a
 * part is no result of the test.
 */
export async function runTest(file: string, name: string, options: CheckOptions, settings: RunSettings, context?: TaskContext): Promise<void> {
  const meta = (context?.task.meta ?? {}) as WeftMeta;
  // one build for the remembered result and the exploration (the plugin's, or made here)
  const built = settings.built ?? (await builder()).buildHarness(file, options);
  const memory = options.shard === undefined ? resultMemory(file, name, options) : undefined;
  const last = memory?.recall(); // only a test with a memory has a last result: `memory!` below

  let replayedDifferently: Bug | undefined;
  if (last && 'failure' in last) {
    const replayed = await replayRemembered(file, name, options, last.failure, built);
    if (replayed.status === 'fail') {
      if (sameBug(signature(replayed.bug!), last.failure))
        throw await failureError(file, name, replayed.bug!, settings, 'still fails (replayed the last counterexample)');
      replayedDifferently = replayed.bug!;
    } else if (replayed.status === 'pass') console.info(fitLine(`weft: ${name}: fixed — re-verifying all interleavings`, 2));
    else console.info(fitLine(`weft: ${name}: the last counterexample no longer replays on the changed code — re-verifying all interleavings`, 2));
    memory!.forget();
  } else if (passedWith(last, built.hash) && settings.reuse) {
    reportReused(meta, last.partial);
    return;
  }
  const { checkBuilt } = await explorer();
  const signal = context?.signal;
  const checked = await checkBuilt(file, { ...options, test: name, onProgress: progressReporter(name), onEstimate: sayEstimate, ...(signal ? { signal } : {}) }, built);
  const result = checked.tests[0]; // none: the signal aborted before its exploration began
  // a part that explored (an error or an interrupt fails it: it is no part of the merge)
  if (checked.shard && result && result.status !== 'error' && !result.interrupted)
    meta.weftShard = { file: checked.file, shard: checked.shard, tests: [result as ShardPart['tests'][number]], requireComplete: options.requireComplete === true };
  // what it explored, in the words of a Vitest shard's part where it is one
  const explored = result && (checked.shard && result.shard ? (await merging()).onlyShard(checked.shard, result.shard.guarantee, 'vitest --merge-reports') : result.guarantee);
  const differently = replayedDifferently && `the remembered counterexample now fails differently: ${await firstLine(replayedDifferently)}`;
  if (result?.status === 'error')
    throw new InterleavingError(result.error ?? 'the harness could not be explored', file, [{ file, line: settings.line }], name);
  if (result?.status === 'fail') {
    memory?.rememberFailure(result.bug!);
    throw await failureError(file, name, result.bug!, settings, differently);
  }
  if (replayedDifferently) {
    // the replay is a real failing execution: never let a bounded exploration pass over it
    memory!.rememberFailure(replayedDifferently);
    throw await failureError(file, name, replayedDifferently, settings, `${differently}\n(a fresh exploration with these options did not reach it; this is the replayed execution)`);
  }
  if (!result || result.interrupted) throw interruptedError(file, name, settings, signal, explored ?? 'not explored');
  if (result.beyondBound) {
    const { beyondBound } = await renderer();
    console.warn(fitLine(`weft: ${name}: passes within maxBound ${result.bound}; beyond it: ${beyondBound(result.beyondBound)}`, 2, process.stderr));
  }
  if (result.partial && options.requireComplete)
    throw new InterleavingError(incompleteFailure(result.guarantee), file, [{ file, line: settings.line }], name);
  if (checked.shard || result.partial) meta.weftPartial = explored;
  memory?.rememberPass(built.hash, result.partial ? result.guarantee : undefined);
}

/** A test Vitest aborted before its exploration ended: neither a pass nor a failure to remember, so the next run explores it again. */
function interruptedError(file: string, name: string, settings: RunSettings, signal: AbortSignal | undefined, explored: string): InterleavingError {
  const reason = signal?.reason instanceof Error ? ` (${signal.reason.message})` : '';
  return new InterleavingError(`stopped: Vitest aborted the test${reason}; ${explored}`, file, [{ file, line: settings.line }], name);
}

/** The remembered counterexample run again: the bug, and a data race's consequence too. */
async function replayRemembered(file: string, name: string, options: CheckOptions, failure: BugSignature, built: LibraryBuild): Promise<TestResult> {
  const { checkBuilt } = await explorer();
  const replay = async (schedule: string) => (await checkBuilt(file, { ...options, test: name, replay: schedule }, built)).tests[0]!;
  const replayed = await replay(failure.schedule);
  if (replayed.status === 'fail' && failure.consequence) {
    const consequence = await replay(failure.consequence.schedule);
    if (consequence.status === 'fail') replayed.bug!.consequence = consequence.bug!;
  }
  return replayed;
}

const firstLine = async (bug: Bug) => (await renderer()).headline(bug);

const PROGRESS_EVERY_MS = 2000;

/** Long explorations say how far they got, every couple of seconds, in the test's output. */
function progressReporter(name: string): CheckOptions['onProgress'] {
  let next = PROGRESS_EVERY_MS;
  return ({ bound, executions, elapsedMs }) => {
    if (elapsedMs < next) return;
    next = elapsedMs + PROGRESS_EVERY_MS;
    const rate = Math.round(executions / (elapsedMs / 1000));
    console.info(fitLine(`weft: ${name}: bound ${bound} · ${withThousands(executions)} executions · ${withThousands(rate)}/s`, 2));
  };
}

/** A long bound's estimate before it runs, and what helps when it is far beyond the budget. */
const sayEstimate: CheckOptions['onEstimate'] = (estimate) => {
  if (!worthSaying(estimate)) return;
  for (const line of [estimate.line, ...(estimate.farBeyond ? [estimate.farBeyond] : [])]) console.info(fitLine(`weft: ${estimate.test}: ${line}`, 2));
};

/**
 * The bug as the test's error. Its code frame is the bug's own location: for a data race
 * the racy access (both accesses are stack frames), then where its consequence fails.
 */
async function failureError(file: string, name: string, bug: Bug, settings: RunSettings, note?: string): Promise<InterleavingError> {
  const { renderBug } = await renderer();
  shown = true;
  const headline = `${note ? `${note}\n` : ''}${renderBug(bug, { color: false })}`;
  const raceAccesses = bug.kind === 'race' ? bug.race.accesses.flatMap((access) => (access.location ? [access.location] : [])).reverse() : [];
  const locations = [bug.location, ...raceAccesses, bug.consequence?.location].filter((location): location is BugLocation => location !== undefined);
  const unique = locations.filter((location, index) => locations.findIndex((other) => other.file === location.file && other.line === location.line) === index);
  return new InterleavingError(headline, file, unique.length > 0 ? unique : [{ file, line: settings.line }], name);
}
