// What a C test did last time, kept between Vitest runs (watch mode): the counterexample
// it reported, or the library hash of its last pass.
//
// One file per test (named by a hash of file, test and options), written to a temporary
// name and renamed into place: Vitest's workers run different tests at once, and each
// writes only its own test's file, whole, so no update is lost and no reader sees half.
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import type { CheckOptions } from '../check.js';
import { defaultCacheDirectory, hashText } from '../compile/cache.js';
import { writeWhole } from '../compile/write-whole.js';
import type { Bug } from '../report/bug.js';
import { type BugSignature, type LastResult, readLastResult } from './reuse.js';

export type { BugSignature } from './reuse.js';

/** The file keeping what a test did last: the plugin names it in the test module, the worker writes it. */
export function lastResultFile(file: string, name: string, options: CheckOptions): string {
  // the worker processes change how fast, not what: the same result
  const { workers: _, ...deciding } = options;
  const key = JSON.stringify({ file, name, options: deciding });
  return join(options.cacheDirectory ?? defaultCacheDirectory(), 'last-results', `${hashText(key).slice(0, 32)}.json`);
}

/** What one test did last. */
export interface ResultMemory {
  recall(): LastResult | undefined;
  rememberPass(hash: string, partial?: string): void;
  rememberFailure(bug: Bug): void;
  forget(): void;
}

export function resultMemory(file: string, name: string, options: CheckOptions): ResultMemory {
  const resultFile = lastResultFile(file, name, options);
  const remember = (result: LastResult) => writeWhole(resultFile, JSON.stringify(result));
  return {
    recall: () => readLastResult(resultFile),
    rememberPass: (hash, partial) => remember(partial ? { pass: hash, partial } : { pass: hash }),
    rememberFailure: (bug) => remember({ failure: signature(bug) }),
    forget: () => rmSync(resultFile, { force: true }),
  };
}

export function signature(bug: Bug): BugSignature {
  return {
    kind: bug.kind,
    message: bug.message,
    ...(bug.location ? { location: bug.location } : {}),
    schedule: bug.schedule,
    ...(bug.consequence ? { consequence: signature(bug.consequence) } : {}),
  };
}

/** Raw addresses in a message differ from process to process (the heap is mapped anywhere). */
const withoutAddresses = (message: string) => message.replace(/0x[0-9a-f]{6,}/g, '0x…');

/** Same kind, message (but for raw addresses) and location, and the same consequence (schedules may differ). */
export function sameBug(a: BugSignature, b: BugSignature): boolean {
  return a.kind === b.kind && withoutAddresses(a.message) === withoutAddresses(b.message) && a.location?.file === b.location?.file &&
    a.location?.line === b.location?.line &&
    (a.consequence && b.consequence ? sameBug(a.consequence, b.consequence) : a.consequence === b.consequence);
}
