// What a C test did last time, kept between Vitest runs (watch mode): the counterexample
// it reported, or the library hash of its last pass.
//
// One file per test (named by a hash of file, test and options), written to a temporary
// name and renamed into place: Vitest's workers run different tests at once, and each
// writes only its own test's file, whole, so no update is lost and no reader sees half.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { defaultCacheDirectory, hashText } from '../compile/cache.js';
import { writeWhole } from '../compile/write-whole.js';
import type { Bug, BugLocation } from '../report/bug.js';

/** What identifies a reported bug: replaying it must give the same. */
export interface BugSignature {
  kind: string;
  message: string;
  location?: BugLocation;
  schedule: string;
  /** a data race's consequence, reported with it */
  consequence?: BugSignature;
}

/** A pass: the library hash, and the guarantee when it was partial (stopped by its budget). */
export type LastResult = { pass: string; partial?: string } | { failure: BugSignature };

/** What the tests of one cache directory did last (the build cache's, by default). */
export interface ResultMemory {
  recall(key: string): LastResult | undefined;
  rememberPass(key: string, hash: string, partial?: string): void;
  rememberFailure(key: string, bug: Bug): void;
  forget(key: string): void;
}

export function resultMemory(cacheDirectory = defaultCacheDirectory()): ResultMemory {
  const resultFile = (key: string) => join(cacheDirectory, 'last-results', `${hashText(key).slice(0, 32)}.json`);
  const remember = (key: string, result: LastResult) => writeWhole(resultFile(key), JSON.stringify(result));
  return {
    recall(key) {
      try {
        return JSON.parse(readFileSync(resultFile(key), 'utf8')) as LastResult;
      } catch {
        return undefined;
      }
    },
    rememberPass: (key, hash, partial) => remember(key, partial ? { pass: hash, partial } : { pass: hash }),
    rememberFailure: (key, bug) => remember(key, { failure: signature(bug) }),
    forget: (key) => rmSync(resultFile(key), { force: true }),
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
