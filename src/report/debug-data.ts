// What describing a counterexample reads from its harness library: addr2line for the
// execution's code offsets, and one readelf for the symbol table and the debug info (kept
// per version of the library file). Synchronous: a worker's first asynchronous child process
// costs more than both tools run one after the other.
import { statSync } from 'node:fs';

import { runTool } from '../compile/toolchain.js';
import { type DebugInfo, parseDebugInfo } from './dwarf.js';
import { type CodeLocation, symbolize } from './locations.js';
import { type DataSymbol, dataSymbolsOf } from './names.js';

export interface DebugData {
  /** code offset -> file:line, for the offsets asked for */
  locations: Map<number, CodeLocation>;
  /** the variables of the symbol table */
  symbols: DataSymbol[];
  info: DebugInfo;
}

type Listing = Pick<DebugData, 'symbols' | 'info'>;

const listings = new Map<string, { mtimeMs: number; listing: Listing }>();

export function readDebugData(library: string, offsets: readonly number[]): DebugData {
  return { locations: symbolize(library, offsets), ...listingOf(library) };
}

function listingOf(library: string): Listing {
  const mtimeMs = statSync(library).mtimeMs;
  const cached = listings.get(library);
  if (cached && cached.mtimeMs === mtimeMs) return cached.listing;
  const { stdout } = runTool('readelf', ['--wide', '--syms', '--debug-dump=info', library]);
  // symbol tables come first, then the debug dumps
  const info = stdout.indexOf('\nContents of the .debug_info section');
  const listing = { symbols: dataSymbolsOf(info < 0 ? stdout : stdout.slice(0, info)), info: parseDebugInfo(info < 0 ? '' : stdout.slice(info)) };
  listings.set(library, { mtimeMs, listing });
  return listing;
}
