// Code offsets in a harness library -> file:line and the source text, through the
// debug info (addr2line, one call for all offsets of a counterexample).
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

import { runTool } from '../compile/toolchain.js';

export interface CodeLocation {
  file: string;
  line: number;
  function: string;
}

export function symbolize(library: string, offsets: readonly number[]): Map<number, CodeLocation> {
  const unique = [...new Set(offsets.filter((offset) => offset > 0))];
  const found = new Map<number, CodeLocation>();
  if (unique.length === 0) return found;
  const output = runTool('addr2line', ['-e', library, '-f', '-C', ...unique.map((o) => `0x${o.toString(16)}`)]).stdout;
  const lines = output.split('\n');
  unique.forEach((offset, index) => {
    const fn = lines[2 * index] ?? '??';
    const position = /^(.*):(\d+)/.exec(lines[2 * index + 1] ?? '');
    if (!position || position[1] === '??' || position[2] === '0') return;
    found.set(offset, { file: displayFile(position[1]!), line: Number(position[2]), function: fn });
  });
  return found;
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
