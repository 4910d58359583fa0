// What describing a counterexample reads from its harness library, with one readelf (kept
// per version of the library file): the symbol table, the debug info and the line table.
// The Vitest plugin lists each library it builds while Vitest starts the worker, so that a
// worker that shows a bug reads the listing instead of waiting for readelf.
import { readFileSync, statSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';

import { listingFile } from '../compile/cache.js';
import { runTool, runToolAsync } from '../compile/toolchain.js';
import { writeWhole } from '../compile/write-whole.js';
import { type DebugInfo, parseDebugInfo } from './dwarf.js';
import { type CodeLocation, type LineTable, locate, parseLineTable } from './locations.js';
import { type DataSymbol, dataSymbolsOf } from './names.js';

export interface DebugData {
  /** the user's variables in the symbol table */
  symbols: DataSymbol[];
  info: DebugInfo;
  /** the source line of a code offset, if it has one */
  locate(offset: number): CodeLocation | undefined;
}

/** What readelf lists of a library, parsed; kept beside it as V8 serializes it (Maps and bigints whole). */
interface Listing {
  format: typeof LISTING_FORMAT;
  /** the library file listed: a listing of another file of the same name is not used */
  size: number;
  mtimeMs: number;
  symbols: DataSymbol[];
  info: DebugInfo;
  lines: LineTable;
}

type FileStamp = Pick<Listing, 'size' | 'mtimeMs'>;

/** Changes whenever Listing does: a listing of another format is read again. */
const LISTING_FORMAT = 4;

const LISTED = ['--wide', '--syms', '--debug-dump=info,decodedline'];

const read = new Map<string, { mtimeMs: number; data: DebugData }>();

export function readDebugData(library: string): DebugData {
  const file = statSync(library);
  const cached = read.get(library);
  if (cached && cached.mtimeMs === file.mtimeMs) return cached.data;
  const { symbols, info, lines } = listedAhead(library, file) ?? parseListing(runTool('readelf', [...LISTED, library]).stdout, file);
  const data = { symbols, info, locate: (offset: number) => locate(lines, offset) };
  read.set(library, { mtimeMs: file.mtimeMs, data });
  return data;
}

/** Lists a library beside it (readelf, parsed), for the worker that may describe a bug in it. */
export async function listAhead(library: string): Promise<void> {
  const file = statSync(library);
  if (listedAhead(library, file)) return;
  const { status, stdout } = await runToolAsync('readelf', [...LISTED, library]);
  if (status === 0) writeWhole(listingFile(library), serialize(parseListing(stdout, file)));
}

/** The listing beside the library, if it is of this format and of this file. */
function listedAhead(library: string, { size, mtimeMs }: FileStamp): Listing | undefined {
  try {
    const listing = deserialize(readFileSync(listingFile(library))) as Listing;
    return listing.format === LISTING_FORMAT && listing.size === size && listing.mtimeMs === mtimeMs ? listing : undefined;
  } catch {
    return undefined;
  }
}

/** readelf's text: the symbol tables first, then the debug sections in the order asked. */
function parseListing(text: string, { size, mtimeMs }: FileStamp): Listing {
  const infoAt = sectionAt(text, '.debug_info');
  const linesAt = sectionAt(text, '.debug_line');
  const info = parseDebugInfo(text.slice(infoAt, linesAt));
  const symbols = dataSymbolsOf(text.slice(0, infoAt));
  return { format: LISTING_FORMAT, size, mtimeMs, symbols, info, lines: parseLineTable(text.slice(linesAt), info.compileDirectories) };
}

/** Where readelf's dump of a section starts (the end of the text without one). */
function sectionAt(text: string, section: string): number {
  const at = text.indexOf(`\nContents of the ${section} section`);
  return at < 0 ? text.length : at;
}
