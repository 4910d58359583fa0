// Code offsets in a harness library -> file:line and the source text, from the line table
// as readelf decodes it (--debug-dump=decodedline, read with the rest of the debug data).
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

export interface CodeLocation {
  file: string;
  line: number;
}

/** Code from `start` up to `end` came from file:line. */
interface Span extends CodeLocation {
  start: number;
  end: number;
}

/** A library's code, by source line: spans sorted by start, none overlapping. */
export type LineTable = readonly Span[];

/**
 * readelf's decoded line table: per compile unit a "CU: <file>:" line, a "<dir>/<file>:" line
 * (or "./<file>:[++]" for a file of the compile directory) wherever the file changes, and a
 * row per address ("<name>  <line>  <address>  [view]  [x]", line "-" ending a sequence).
 * A row's code runs to the next row's address; of rows at one address the last one counts,
 * as for addr2line. Relative names are relative to the unit's compile directory.
 */
export function parseLineTable(text: string, compileDirectories: readonly string[]): LineTable {
  const spans: Span[] = [];
  let unit = -1;
  let directory = '';
  let file = '';
  let open: { start: number; file: string; line: number } | undefined;
  const close = (end: number) => {
    if (open && end > open.start && open.line > 0) spans.push({ ...open, end });
    open = undefined;
  };
  for (const line of text.split('\n')) {
    const row = /\s(\d+|-)\s+0x([0-9a-f]+)(?:\s+\d+)?(?:\s+x)?\s*$/.exec(line);
    if (row && unit >= 0) {
      const address = parseInt(row[2]!, 16);
      close(address);
      if (row[1] !== '-') open = { start: address, file, line: Number(row[1]) };
      continue;
    }
    const unitStart = /^CU: (.*):$/.exec(line);
    if (unitStart) {
      unit++;
      open = undefined;
      directory = compileDirectories[unit] ?? compileDirectories[0] ?? '';
      file = displayFile(resolve(directory, unitStart[1]!));
      continue;
    }
    const fileChange = /^(.+):(?:\[\+\+\])?$/.exec(line);
    if (fileChange && unit >= 0) file = displayFile(resolve(directory, fileChange[1]!));
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** A system header's code (an inline wrapper: _FORTIFY_SOURCE's memcpy, glibc's getline) is not where the harness called it. */
const systemHeader = /^\/usr\/(local\/)?(include|lib\/gcc)\//;

/**
 * Where the code at `offset` came from; undefined outside the table (weft's runtime, say).
 * Code inlined from a system header is placed at the harness's line its code ran from
 * before it, in the same run of code: the call the header's wrapper was inlined into.
 */
export function locate(table: LineTable, offset: number): CodeLocation | undefined {
  let low = 0;
  let high = table.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = table[middle]!;
    if (offset < span.start) high = middle - 1;
    else if (offset >= span.end) low = middle + 1;
    else {
      let at = middle;
      while (systemHeader.test(table[at]!.file) && at > 0 && table[at - 1]!.end === table[at]!.start) at--;
      const caller = systemHeader.test(table[at]!.file) ? span : table[at]!;
      return { file: caller.file, line: caller.line };
    }
  }
  return undefined;
}

function displayFile(file: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

const sourceCache = new Map<string, string[] | null>();

/** The text of a source line, trimmed, or undefined when the file cannot be read. */
export function sourceLine(file: string, line: number): string | undefined {
  let lines = sourceCache.get(file);
  if (lines === undefined) {
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      lines = null;
    }
    sourceCache.set(file, lines);
  }
  return lines?.[line - 1]?.trim();
}

/** Forget cached sources (watch mode: files change between runs). */
export function forgetSources(): void {
  sourceCache.clear();
}
