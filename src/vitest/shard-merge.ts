// `vitest --merge-reports` of C tests explored in parts (plugin option shardExplorations):
// every Vitest shard explored its part of each C test, so the blobs hold each C file once
// per shard. Before any reporter sees them, the copies of a file become one, and each test's
// parts are joined as `weft merge` joins shard reports (report/merge.ts): the guarantee holds
// only when every shard's part is there, once, from the same build and options; anything else
// fails the test with the reason.
import { relative } from 'node:path';

import { ShardMergeError, mergeShards } from '../report/merge.js';
import { shardText } from '../explore/shard.js';
import { type ShardPart, type WeftMeta, incompleteFailure } from './reuse.js';

/** The parts of Vitest's serialized tasks the merge reads and writes (its types are not a dependency of weft). */
interface TaskLike {
  name: string;
  type: string;
  mode?: string;
  meta: WeftMeta;
  tasks?: TaskLike[];
  result?: { state: string; duration?: number; errors?: unknown[] };
}
export interface FileTaskLike extends TaskLike {
  filepath: string;
  projectName?: string;
}

/**
 * Joins, in place, the copies of every file `isCTest` accepts that the shards' blobs hold:
 * one file each, one result per test. Messages name files relative to `root`.
 */
export function joinShardParts(files: FileTaskLike[], isCTest: (path: string) => boolean, root: string): void {
  const copies = new Map<string, FileTaskLike[]>();
  for (const file of files) {
    if (!isCTest(file.filepath)) continue;
    const key = `${file.projectName ?? ''}\u0000${file.filepath}`;
    copies.set(key, [...(copies.get(key) ?? []), file]);
  }
  for (const all of copies.values() as Iterable<[FileTaskLike, ...FileTaskLike[]]>) {
    // only shards' parts are joined: copies of whole runs (blobs of several full runs) stay as Vitest merges them
    if (!all.some((copy) => testsOf(copy).some((test) => test.meta.weftShard))) continue;
    const [kept, ...others] = all;
    const tests = testsOf(kept);
    const file = relative(root, kept.filepath);
    for (const test of tests) joinTest(file, test, all.map((copy) => testsOf(copy).find((other) => other.name === test.name)));
    // the file's own errors (a hook, a setup file) in any shard fail it
    const errors = all.flatMap((copy) => copy.result?.errors ?? []);
    const failed = tests.some((test) => test.result?.state === 'fail') || all.some((copy) => copy.result?.state === 'fail' && (copy.result.errors?.length ?? 0) > 0);
    kept.result = { ...kept.result, state: failed ? 'fail' : (kept.result?.state ?? 'pass'), duration: longest(all), ...(errors.length > 0 ? { errors } : {}) };
    for (const other of others) files.splice(files.indexOf(other), 1);
  }
}

/** One test's result from its parts (a shard where the test is missing or did not explore counts as a missing part). */
function joinTest(file: string, test: TaskLike, parts: (TaskLike | undefined)[]): void {
  const explored = parts.filter((part): part is TaskLike & { meta: { weftShard: ShardPart } } => part?.meta.weftShard !== undefined);
  // a part that failed before it explored (an error, an abort): the test fails with its error
  const failedBefore = parts.find((part) => part && !part.meta.weftShard && part.result?.state === 'fail');
  if (failedBefore || explored.length === 0) {
    if (failedBefore) Object.assign(test, { mode: failedBefore.mode, result: failedBefore.result });
    return;
  }
  // run in some shard: the kept copy may be one that skipped it (-t there)
  test.mode = explored[0]!.mode;
  const { count } = explored[0]!.meta.weftShard.shard;
  // one file, wherever each shard's machine had it
  const reports = explored.map((part) => ({ ...part.meta.weftShard, file, source: `the report of Vitest shard ${shardText(part.meta.weftShard.shard)}` }));
  const requireComplete = explored.some((part) => part.meta.weftShard.requireComplete);
  const duration = longest(explored);
  // the part's own lines say "shard i/n only": the test's now say what the parts make together
  // (the kept test is one of the parts: read them through `reports` from here on)
  const { weftPartial: _, weftShard: __, ...meta } = test.meta;
  test.meta = meta;
  let merged: ReturnType<typeof mergeShards>[number]['tests'][number];
  try {
    merged = mergeShards(reports)[0]!.tests[0]!;
  } catch (error) {
    if (!(error instanceof ShardMergeError)) throw error;
    test.result = failure(`${error.message} (${count} Vitest shards: vitest run --shard=i/${count} --reporter=blob for every i, then vitest --merge-reports)`, duration);
    return;
  }
  test.meta.weftMerged = merged.guarantee;
  if (merged.status !== 'pass') {
    // the counterexample as the shard whose bug the merge shows reported it (its replay string names its run)
    const shown = explored.find((part, at) => part.result?.state === 'fail' && reports[at]!.tests[0]!.bug?.schedule === merged.bug?.schedule);
    test.result = shown?.result ?? failure(merged.error ?? merged.guarantee, duration);
    return;
  }
  if (merged.partial && requireComplete) {
    test.result = failure(incompleteFailure(merged.guarantee), duration);
    return;
  }
  if (merged.partial) test.meta.weftPartial = merged.guarantee;
  test.result = { ...test.result, state: 'pass', duration, errors: [] };
}

function failure(message: string, duration: number): NonNullable<TaskLike['result']> {
  const name = 'InterleavingError';
  return { state: 'fail', duration, errors: [{ name, message, stack: `${name}: ${message}` }] };
}

const longest = (tasks: TaskLike[]) => Math.max(0, ...tasks.map((task) => task.result?.duration ?? 0));

function testsOf(task: TaskLike): TaskLike[] {
  return (task.tasks ?? []).flatMap((child) => (child.type === 'test' ? [child] : testsOf(child)));
}
