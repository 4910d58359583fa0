// What describing a counterexample reads from its harness library, with one readelf (kept
// per version of the library file): the symbol table, the debug info and the line table.
// The Vitest plugin lists each library it builds while Vitest starts the worker, so that a
// worker that shows a bug reads the listing instead of waiting for readelf.
import { existsSync, readFileSync, statSync } from 'node:fs';

import { listingFile } from '../compile/cache.js';
import { runTool, runToolAsync } from '../compile/toolchain.js';
import { writeWhole } from '../compile/write-whole.js';
import { type DebugInfo, parseDebugInfo } from './dwarf.js';
import { type CodeLocation, type LineTable, locate, parseLineTable } from './locations.js';
import { type DataSymbol, dataSymbolsOf } from './names.js';

export interface DebugData {
  /** the variables of the symbol table */
  symbols: DataSymbol[];
  info: DebugInfo;
  /** the source line of a code offset, if it has one */
  locate(offset: number): CodeLocation | undefined;
}

const read = new Map<string, { mtimeMs: number; data: DebugData }>();

const LISTING = ['--wide', '--syms', '--debug-dump=info,decodedline'];

/** Writes readelf's listing of a library beside it, for the worker that may describe a bug in it. */
export async function listAhead(library: string): Promise<void> {
  if (existsSync(listingFile(library))) return;
  const { status, stdout } = await runToolAsync('readelf', [...LISTING, library]);
  if (status === 0) writeWhole(listingFile(library), stdout);
}

function listedAhead(library: string): string | undefined {
  try {
    return readFileSync(listingFile(library), 'utf8');
  } catch {
    return undefined;
  }
}

export function readDebugData(library: string): DebugData {
  const mtimeMs = statSync(library).mtimeMs;
  const cached = read.get(library);
  if (cached && cached.mtimeMs === mtimeMs) return cached.data;
  const stdout = listedAhead(library) ?? runTool('readelf', [...LISTING, library]).stdout;
  // the symbol tables first, then the debug sections in the order asked
  const infoAt = sectionAt(stdout, '.debug_info');
  const linesAt = sectionAt(stdout, '.debug_line');
  const info = parseDebugInfo(stdout.slice(infoAt, linesAt));
  const lines: LineTable = parseLineTable(stdout.slice(linesAt), info.compileDirectories);
  const data = { symbols: dataSymbolsOf(stdout.slice(0, infoAt)), info, locate: (offset: number) => locate(lines, offset) };
  read.set(library, { mtimeMs, data });
  return data;
}

/** Where readelf's dump of a section starts (the end of the text without one). */
function sectionAt(text: string, section: string): number {
  const at = text.indexOf(`\nContents of the ${section} section`);
  return at < 0 ? text.length : at;
}
