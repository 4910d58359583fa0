// Per-file options: a comment among a C test file's first lines, e.g.
//
//   // weft: maxBound=3 mode=sc strategy=dfs nondetDomain=0,1,2 cflags="-DSIZE=4"
//
// Keys are the CheckOptions names; numbers, lists (comma-separated) and quoted strings.
import type { CheckOptions } from '../check.js';

export class FileOptionError extends Error {
  constructor(file: string, readonly line: number, message: string) {
    super(`${file}:${line}: ${message}`);
    this.name = 'FileOptionError';
  }
}

const numeric = new Set(['maxBound', 'maxExecutions', 'timeBudgetMs', 'maxSteps', 'hangTimeoutMs', 'seed']);
const text = new Set(['strategy', 'mode', 'cflags', 'races']);
const lists = new Set(['nondetDomain', 'includeDirs', 'sources']);
const flags = new Set(['spuriousWakeups', 'requireComplete']);

/** Options from a `// weft:` comment in the first 20 lines, or {} when there is none. */
export function parseFileOptions(source: string, file: string): CheckOptions {
  const lines = source.split('\n').slice(0, 20);
  const index = lines.findIndex((line) => /^\s*(\/\/|\/\*)\s*weft:/.test(line));
  if (index < 0) return {};
  const body = lines[index]!.replace(/^\s*(\/\/|\/\*)\s*weft:/, '').replace(/\*\/\s*$/, '');
  const options: Record<string, unknown> = {};
  for (const match of body.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
    const [, key, raw] = match as unknown as [string, string, string];
    const value = raw.startsWith('"') ? raw.slice(1, -1) : raw;
    if (numeric.has(key)) {
      if (!/^\d+$/.test(value)) throw new FileOptionError(file, index + 1, `weft option ${key} needs a whole number, got '${value}'`);
      options[key] = Number(value);
    } else if (text.has(key)) options[key] = value;
    else if (lists.has(key)) options[key] = key === 'nondetDomain' ? value.split(',').map(Number) : value.split(',');
    else if (flags.has(key)) options[key] = value === 'true';
    else throw new FileOptionError(file, index + 1, `unknown weft option '${key}'`);
  }
  const leftover = body.replace(/(\w+)=("[^"]*"|\S+)/g, '').trim();
  if (leftover) throw new FileOptionError(file, index + 1, `cannot read weft options near '${leftover}' (expected key=value pairs)`);
  return options as CheckOptions;
}
