// Per-file options: a comment among a C test file's first lines, e.g.
//
//   // weft: maxBound=3 mode=sc strategy=dfs nondetDomain=0,1,2 cflags="-DSIZE=4"
//
// Keys are option names (src/options.ts); values are written as on the command line,
// lists comma-separated, strings with spaces in double quotes. weft check, weft replay,
// checkAllInterleavings and the Vitest plugin all read it; relative paths in it resolve
// against the test file's directory, wherever weft runs from.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { OptionError } from './errors.js';
import { type SchemaOptions, isOptionName, optionSpec } from './options.js';

/** the comment is looked for in this many first lines */
const HEADER_LINES = 20;
const COMMENT = /^\s*(\/\/|\/\*)\s*weft:/;
const PAIR = /(\w+)=("[^"]*"|\S+)/g;

/** The line (from 1) of the `// weft:` comment, if the file has one. */
export function optionsCommentLine(source: string): number | undefined {
  const index = source.split('\n').slice(0, HEADER_LINES).findIndex((line) => COMMENT.test(line));
  return index < 0 ? undefined : index + 1;
}

/** Options from a `// weft:` comment in the first lines of `source`, or {} when there is none. */
export function parseFileOptions(source: string, file: string): SchemaOptions {
  const line = optionsCommentLine(source);
  if (line === undefined) return {};
  const refuse = (message: string) => new OptionError(`${file}:${line}: ${message}`, 'file-option');
  const body = source.split('\n')[line - 1]!.replace(COMMENT, '').replace(/\*\/\s*$/, '');
  const options: Record<string, unknown> = {};
  for (const match of body.matchAll(PAIR)) {
    const [, key, raw] = match as unknown as [string, string, string];
    if (!isOptionName(key) || !optionSpec(key).inFile) throw refuse(`unknown weft option '${key}'`);
    const spec = optionSpec(key);
    const text = raw.startsWith('"') ? raw.slice(1, -1) : raw;
    let value: unknown;
    try {
      value = spec.kind.check(spec.kind.fromText(text, key), key);
    } catch (error) {
      throw error instanceof OptionError ? refuse(error.message) : error;
    }
    options[key] = spec.kind.relativeTo ? spec.kind.relativeTo(value, dirname(file)) : value;
  }
  const leftover = body.replace(PAIR, '').trim();
  if (leftover) throw refuse(`cannot read weft options near '${leftover}' (expected key=value pairs)`);
  return options as SchemaOptions;
}

/**
 * The file's own options under the given ones: what a caller passes wins over the comment.
 * A file that cannot be read has none here; the build then says why it cannot be used.
 */
export function withFileOptions<Options extends SchemaOptions>(file: string, given: Options): Options {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return given;
  }
  const stated = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...parseFileOptions(source, file), ...Object.fromEntries(stated) } as Options;
}
