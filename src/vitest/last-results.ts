// What a C test did last time, kept between Vitest runs (watch mode): the replay string
// of its last counterexample, or the library hash of its last pass.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { defaultCacheDirectory } from '../build/cache.js';

interface Store {
  failures: Record<string, string>;
  passes: Record<string, string>;
}

const storeFile = () => join(defaultCacheDirectory(), 'last-results.json');

function load(): Store {
  try {
    return JSON.parse(readFileSync(storeFile(), 'utf8')) as Store;
  } catch {
    return { failures: {}, passes: {} };
  }
}

function save(store: Store): void {
  const file = storeFile();
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify(store));
  renameSync(temporary, file);
}

function update(change: (store: Store) => void): void {
  const store = load();
  change(store);
  save(store);
}

export const recallFailure = (key: string): string | undefined => load().failures[key];
export const recallPass = (key: string): string | undefined => load().passes[key];

export function rememberFailure(key: string, schedule: string): void {
  update((store) => {
    store.failures[key] = schedule;
    delete store.passes[key];
  });
}

export function forgetFailure(key: string): void {
  update((store) => {
    delete store.failures[key];
  });
}

export function rememberPass(key: string, hash: string): void {
  update((store) => {
    store.passes[key] = hash;
    delete store.failures[key];
  });
}
