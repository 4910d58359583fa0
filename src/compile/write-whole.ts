// Files several processes write at once (Vitest's workers, parallel checks): each is written
// under a temporary name of its own and renamed into place, so that a reader sees a whole
// file or none.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

import { PRIVATE_DIRECTORY_MODE } from './ownership.js';

let written = 0;

/** Writes `file` whole, making its directory (the owner's only) if missing. */
export function writeWhole(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  // unique among the processes that may share the directory: the host, the process, and a count within it
  const temporary = `${file}.${hostname()}-${process.pid}-${written++}`;
  writeFileSync(temporary, data);
  renameSync(temporary, file);
}
