// Which tests of a C file passed last time with this very build. The module the plugin
// generates asks before it loads weft's runtime: in a warm run each file gets a fresh worker,
// and one whose tests all passed before loads no explorer, native code or crypto.
import { readFileSync } from 'node:fs';

import type { BugLocation } from '../report/bug.js';
import type { ShardFileReport } from '../report/merge.js';

export { stillStampedAll } from '../compile/stamps.js';

/** A pass: the library hash, and the guarantee when it was partial (stopped by its budget). */
export type LastResult = { pass: string; partial?: string } | { failure: BugSignature };

/** What identifies a reported bug: replaying it must give the same. */
export interface BugSignature {
  kind: string;
  message: string;
  location?: BugLocation;
  schedule: string;
  /** a data race's consequence, reported with it */
  consequence?: BugSignature;
}

/** The result kept in `file`, if there is one. */
export function readLastResult(file: string): LastResult | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LastResult;
  } catch {
    return undefined;
  }
}

/** Whether the result is a pass of the library with this hash. */
export const passedWith = (result: LastResult | undefined, hash: string): result is { pass: string; partial?: string } =>
  result !== undefined && 'pass' in result && result.pass === hash;

/** The tests (name → the file keeping its last result) that passed with this build, with their partial guarantee if any. */
export function rememberedPasses(hash: string, resultFiles: Record<string, string>): Map<string, string | undefined> {
  const passes = new Map<string, string | undefined>();
  for (const [name, file] of Object.entries(resultFiles)) {
    const last = readLastResult(file);
    if (passedWith(last, hash)) passes.set(name, last.partial);
  }
  return passes;
}

/** What a test tells the plugin's summary (the Vitest task's meta). */
export interface WeftMeta {
  weftReused?: boolean;
  weftPartial?: string;
  /** a Vitest shard's part of the test's exploration (plugin option shardExplorations), for the merge */
  weftShard?: ShardPart;
  /** the guarantee of the parts joined by `vitest --merge-reports` */
  weftMerged?: string;
}

/** One Vitest shard's part of one C test: its report as `weft check --shard i/n --json` gives it. */
export type ShardPart = Omit<ShardFileReport, 'source'> & { requireComplete: boolean };

/** Why a partial result fails a C test under requireComplete (a test's own, or its shards' parts joined). */
export const incompleteFailure = (guarantee: string) => `partial: ${guarantee} (requireComplete: a run stopped by its budget fails)`;

/** Marks a test as passing by its remembered result (the plugin's summary counts it). */
export function reportReused(meta: WeftMeta, partial: string | undefined): void {
  meta.weftReused = true;
  if (partial) meta.weftPartial = partial;
}
