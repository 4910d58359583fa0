// `weft merge`: the reports of the n shards of one exploration (`weft check --shard i/n
// --json`, explore/shard.ts) joined into one result. The guarantee holds only when every
// shard is there, each once, made from the same build and the same options: anything else
// is refused, never merged into a claim no machine checked.
import { normalize } from 'node:path';

import type { CheckResult, TestResult } from '../check.js';
import { hashText } from '../compile/cache.js';
import { WeftError } from '../errors.js';
import type { StopReason } from '../explore/driver.js';
import { type Shard, shardText } from '../explore/shard.js';
import type { ResolvedOptions } from '../options.js';
import { withThousands } from '../numbers.js';
import { budgetName, guarantee } from './guarantee.js';

/** What a shard's report says about the exploration it belongs to. */
export interface ShardOfFile extends Shard {
  /** the build and the options that shape the search tree: shards merge only when theirs are equal */
  key: string;
}

/** What a shard's report says about one test, besides its result: how its part of the search ended. */
export interface ShardOfTest {
  stoppedBy: StopReason;
  /** the highest bound explored fully (-1: none), or the bug's */
  bound: number;
  /** the bound being explored when the shard stopped */
  reachedBound: number;
  /** what the shard's part of the search explored, in the words of a whole search's guarantee */
  guarantee: string;
  /**
   * drf mode: the racy locations a race made scheduling points (report/replay.ts), which
   * changes the search tree: shards that made others explored parts of different searches
   */
  racyLocations: string[];
}

/** A shard's guarantee: what its part explored, that it is a part, and what joins the parts. */
export function onlyShard(shard: Shard, guarantee: string, joinedBy = 'weft merge'): string {
  return `shard ${shardText(shard)} only (${joinedBy} joins the shards): ${guarantee}`;
}

/** the options that change how fast, which part, or how long — not the search tree (the build hash covers the compiler flags) */
const notShapingTheTree = new Set(['workers', 'shard', 'maxExecutions', 'timeBudgetMs', 'requireComplete', 'cacheDirectory', 'cflags', 'includeDirs', 'sources', 'hangTimeoutMs']);

/** The key of a shard's exploration: the build's identity (code, flags, compiler; not paths) and every option that shapes its search tree. */
export function shardKey(build: string, options: ResolvedOptions): string {
  const shaping = Object.entries(options).filter(([name]) => !notShapingTheTree.has(name));
  return hashText(build, JSON.stringify(shaping)).slice(0, 16);
}

export class ShardMergeError extends WeftError {
  constructor(message: string) {
    super('shard', message);
    this.name = 'ShardMergeError';
  }
}

export interface ShardFileReport {
  /** where the report was read from, for messages */
  source: string;
  file: string;
  shard: ShardOfFile;
  tests: (TestResult & { shard: ShardOfTest })[];
}

/** The file reports in one `weft check --shard i/n --json` output (one file's object, or `{ files: [...] }`). */
export function readShardReport(source: string, text: string): ShardFileReport[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ShardMergeError(`${source} is not JSON: give weft merge what weft check --shard i/n --json printed`);
  }
  const files = isObject(parsed) && Array.isArray(parsed.files) ? (parsed.files as unknown[]) : [parsed];
  return files.map((file) => {
    if (!isObject(file) || typeof file.file !== 'string' || !Array.isArray(file.tests))
      throw new ShardMergeError(`${source} is not a report of weft check --json`);
    if (typeof file.error === 'string') throw new ShardMergeError(`${source}: ${file.file} could not be checked: ${file.error}`);
    if (file.interrupted === true) throw new ShardMergeError(`${source}: ${file.file}: the shard was interrupted before it explored its part: check it again`);
    if (!isObject(file.shard)) throw new ShardMergeError(`${source}: ${file.file} was not checked as a shard (weft check --shard i/n)`);
    return { source, file: file.file, shard: file.shard as unknown as ShardOfFile, tests: file.tests as ShardFileReport['tests'] };
  });
}

/** One result per file, from every shard's report of it. */
export function mergeShards(reports: readonly ShardFileReport[]): Pick<CheckResult, 'file' | 'tests'>[] {
  // by the file as written, but `./a/x.c` and `a/x.c` are one file
  const byFile = new Map<string, ShardFileReport[]>();
  for (const report of reports) {
    const file = normalize(report.file);
    byFile.set(file, [...(byFile.get(file) ?? []), report]);
  }
  return [...byFile.values()].map((shards) => ({ file: shards[0]!.file, tests: mergeFile(shards[0]!.file, shards) }));
}

function mergeFile(file: string, reports: ShardFileReport[]): TestResult[] {
  const { count, key } = reports[0]!.shard;
  const seen = new Map<number, string>();
  for (const report of reports) {
    const { index } = report.shard;
    if (report.shard.count !== count)
      throw new ShardMergeError(`${file}: ${report.source} is shard ${index}/${report.shard.count}, ${reports[0]!.source} one of ${count}: shards of different splits`);
    if (report.shard.key !== key)
      throw new ShardMergeError(`${file}: ${report.source} and ${reports[0]!.source} explored different builds or options: shards of one exploration need the same code, compiler and options`);
    if (seen.has(index)) throw new ShardMergeError(`${file}: shard ${shardText({ index, count })} is given twice (${seen.get(index)} and ${report.source})`);
    seen.set(index, report.source);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !seen.has(index));
  if (missing.length > 0)
    throw new ShardMergeError(`${file}: shard${missing.length > 1 ? 's' : ''} ${missing.map((index) => shardText({ index, count })).join(', ')} missing: the guarantee needs every shard`);
  const ordered = [...reports].sort((a, b) => a.shard.index - b.shard.index);
  const names = ordered[0]!.tests.map((test) => test.name);
  for (const report of ordered)
    if (report.tests.map((test) => test.name).join('\n') !== names.join('\n'))
      throw new ShardMergeError(`${file}: ${report.source} has other tests than ${ordered[0]!.source}`);
  return names.map((_, at) => mergeTest(ordered.map((report) => report.tests[at]!), count));
}

function mergeTest(parts: (TestResult & { shard: ShardOfTest })[], count: number): TestResult {
  const first = parts[0]!;
  const executions = parts.reduce((sum, part) => sum + part.executions, 0);
  const common = {
    name: first.name, executions, redundantRuns: parts.reduce((sum, part) => sum + part.redundantRuns, 0), boundType: first.boundType, strategy: first.strategy,
    // the shards ran side by side
    elapsedMs: Math.max(...parts.map((part) => part.elapsedMs)),
  };
  const where = (part: TestResult) => `shard ${shardText({ index: parts.indexOf(part as (typeof parts)[number]) + 1, count })}`;
  const errored = parts.find((part) => part.status === 'error');
  if (errored) return { ...common, status: 'error', bound: 0, complete: false, guarantee: errored.guarantee, error: `${where(errored)}: ${errored.error ?? 'error'}` };
  const warnings = parts.flatMap((part) => part.warnings ?? []).filter((warning, at, all) => all.findIndex((other) => other.message === warning.message) === at);
  const withWarnings = warnings.length > 0 ? { warnings } : {};
  const failing = parts.filter((part) => part.status === 'fail');
  // a race one shard made a scheduling point changed its search tree: the parts no longer make one search
  const racy = (part: (typeof parts)[number]) => part.shard.racyLocations.join(' ');
  const diverged = parts.find((part) => racy(part) !== racy(first));
  if (diverged && failing.length === 0)
    throw new ShardMergeError(
      `${first.name}: ${where(first)} and ${where(diverged)} made different racy locations scheduling points (a data race one found and the others did not), ` +
      'so their parts belong to different searches: check every shard with --mode sc, or with races error',
    );
  if (failing.length > 0) {
    // the fewest preemptions; among equals, the lowest shard
    const shown = failing.reduce((best, part) => (part.bound < best.bound ? part : best));
    const unfinished = parts.filter((part) => part.shard.stoppedBy !== 'bug' && part.shard.stoppedBy !== 'exhausted' && part.shard.bound < shown.bound - 1);
    const caveat = (unfinished.length > 0
      ? `; ${unfinished.map(where).join(', ')} did not explore every bound below ${shown.bound}: a bug with fewer preemptions may exist` : '') +
      (diverged ? '; after the data race, only the shard that found it explored its part with the racy locations as scheduling points' : '');
    const { shard: _, ...found } = shown;
    return {
      ...found, ...common, ...withWarnings,
      guarantee: `${shown.shard.guarantee} (${where(shown)}; the ${count} shards ran ${withThousands(executions)} executions)${caveat}`,
    };
  }
  // a shard that explored all of its part does not limit the bound; the others do
  const limiting = parts.filter((part) => part.shard.stoppedBy !== 'exhausted');
  const stopped = parts.filter((part) => part.partial);
  const explored = {
    executions, redundantRuns: common.redundantRuns, elapsedMs: common.elapsedMs,
    stoppedBy: stopped[0]?.shard.stoppedBy ?? (limiting.length > 0 ? 'max-bound' : 'exhausted'),
    complete: limiting.length === 0,
    bound: limiting.length > 0 ? Math.min(...limiting.map((part) => part.shard.bound)) : Math.max(...parts.map((part) => part.shard.bound)),
    reachedBound: Math.min(...(stopped.length > 0 ? stopped : parts).map((part) => part.shard.reachedBound)),
  };
  return {
    ...common, ...withWarnings, status: 'pass', bound: Math.max(explored.bound, 0), complete: explored.complete,
    guarantee: `${guarantee(explored, first.boundType)}; ${count} shards merged${stoppedByBudget(stopped, where)}`, ...(stopped.length > 0 ? { partial: true } : {}),
  };
}

/** Which shards their budget stopped, and which budget: the merged guarantee names only the first's. */
function stoppedByBudget(stopped: (TestResult & { shard: ShardOfTest })[], where: (part: TestResult) => string): string {
  if (stopped.length === 0) return '';
  const named = stopped.map((part) => {
    const { stoppedBy } = part.shard;
    return `${where(part)}${stoppedBy === 'max-executions' || stoppedBy === 'time-budget' ? ` (${budgetName(stoppedBy)})` : ''}`;
  });
  return `; stopped by ${stopped.length > 1 ? 'their budgets' : 'its budget'}: ${named.join(', ')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
