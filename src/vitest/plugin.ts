// weft/vitest: C concurrency tests beside normal tests. With the plugin, Vitest collects
// C test files (default **/*.test.c); each becomes a suite named after the file, with one
// test per WEFT_TEST (or main) that explores all its interleavings.
//
//   import { defineConfig } from 'vitest/config'
//   import weft from 'weft/vitest'
//   export default defineConfig({ plugins: [weft({ maxBound: 2 })] })
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { Plugin } from 'vite';

import { buildHarness } from '../build/compile.js';
import type { CheckOptions } from '../check.js';
import { parseFileOptions } from '../file-options.js';
import type { PluginOptions } from '../options.js';

export interface WeftPluginOptions extends PluginOptions {
  /** globs of C test files (default: ['**\/*.test.c']) */
  include?: string[];
}

const runtimeModule = fileURLToPath(new URL('./runtime.js', import.meta.url));
const DEPENDENCY = '?weft-dependency';

export default function weft(pluginOptions: WeftPluginOptions = {}): Plugin {
  const { include = ['**/*.test.c'], ...defaults } = pluginOptions;
  const patterns = include.map((glob) => new RegExp(`${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*')}$`));
  const isCTest = (id: string) => patterns.some((pattern) => pattern.test(id.split('?')[0]!));
  return {
    name: 'weft',
    enforce: 'pre',
    config(config) {
      const test = (config as { test?: { include?: string[] } }).test ?? {};
      return { test: { include: [...(test.include ?? ['**/*.{test,spec}.?(c|m)[jt]s?(x)']), ...include] } } as never;
    },
    load(id) {
      if (id.endsWith(DEPENDENCY)) return ''; // a header, imported only to be watched
      const file = id.split('?')[0]!;
      if (!isCTest(file)) return null;
      let options: CheckOptions = { ...defaults };
      let setupError: string | undefined;
      try {
        options = { ...defaults, ...parseFileOptions(readFileSync(file, 'utf8'), file) };
      } catch (error) {
        setupError = (error as Error).message;
      }
      let headers: string[] = [];
      try {
        headers = buildHarness(file, options).dependencies.filter((path) => path !== file && !path.startsWith('/usr/'));
      } catch {
        // the test module reports the build error, with its location, as a failing test
      }
      return { code: testModule(file, headers, options, setupError), map: { mappings: '' } };
    },
  };
}

/** Options as JavaScript source: JSON, but Infinity (maxBound unbounded, no budget) stays Infinity, not null. */
function optionsLiteral(options: CheckOptions): string {
  const infinity = '\u0000Infinity';
  return JSON.stringify(options, (_, value: unknown) => (value === Number.POSITIVE_INFINITY ? infinity : value))
    .replaceAll(JSON.stringify(infinity), 'Infinity');
}

/** The JavaScript module that stands for a C test file: the file is the suite. */
function testModule(file: string, headers: string[], options: CheckOptions, setupError: string | undefined): string {
  const json = JSON.stringify;
  // the headers it includes are imported (as empty modules) so that Vitest's watcher
  // re-runs the file when one of them changes
  return `
${headers.map((header) => `import ${json(header + DEPENDENCY)};`).join('\n')}
import { test } from 'vitest';
import { listTests, runTest, buildErrorToTestError } from ${json(runtimeModule)};
const file = ${json(file)};
const options = ${optionsLiteral(options)};
let names = [];
let setupError;
try {
  ${setupError === undefined ? 'names = listTests(file, options);' : `throw new Error(${json(setupError)});`}
} catch (error) {
  setupError = buildErrorToTestError(error, file);
  test('build', () => { throw setupError; });
}
for (const name of names) test(name, () => runTest(file, name, options));
`;
}
