// A first test from any folder: `weft example` prints one, `weft init` writes it and the
// Vitest config (examples/first-test/: the README shows the same files, a test keeps them so).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { firstTestDir } from '../paths.js';

export const EXAMPLE_FILE = 'queue.test.c';
const CONFIG_FILE = 'vitest.config.mts';
/** Vitest's own config names: a project with one keeps it (it adds the plugin itself) */
const vitestConfigs = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((extension) => `vitest.config.${extension}`);

export const exampleTest = (): string => readFileSync(join(firstTestDir, EXAMPLE_FILE), 'utf8');

/** Writes the example test and, when the folder has no Vitest config, ours; never overwrites. What it did, a line each. */
export function init(folder: string): string[] {
  const said: string[] = [];
  if (existsSync(join(folder, EXAMPLE_FILE))) said.push(`kept ${EXAMPLE_FILE}: it exists (npx weft example prints ours)`);
  else {
    writeFileSync(join(folder, EXAMPLE_FILE), exampleTest());
    said.push(`wrote ${EXAMPLE_FILE}: two tests of a small queue, one of them failing`);
  }
  const config = vitestConfigs.find((name) => existsSync(join(folder, name)));
  if (config) said.push(`kept ${config}: its plugins need weft (import weft from 'weft/vitest'; plugins: [weft({ maxBound: 2 })])`);
  else {
    writeFileSync(join(folder, CONFIG_FILE), readFileSync(join(firstTestDir, CONFIG_FILE), 'utf8'));
    said.push(`wrote ${CONFIG_FILE}: Vitest runs C tests (**/*.test.c) with weft`);
  }
  said.push('next: npx vitest');
  return said;
}
