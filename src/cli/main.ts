#!/usr/bin/env node
// The weft command: check C test files or replay one execution.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { BuildError } from '../build/errors.js';
import { type CheckResult, OptionError, checkAllInterleavings } from '../check.js';
import { packageRoot } from '../paths.js';
import { toJson } from '../report/json.js';
import { formatMs, renderCheck } from '../report/render.js';
import { ReplayFormatError } from '../report/replay.js';
import { type Command, UsageError, parseArgs, usage } from './args.js';

const EXIT_PASS = 0;
const EXIT_BUG = 1;
const EXIT_INPUT = 2;

async function main(argv: string[]): Promise<number> {
  let command: Command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return fail(`${error.message}\n\n${usage}`);
    throw error;
  }
  if (command.command === 'help') {
    process.stdout.write(`${usage}\n`);
    return EXIT_PASS;
  }
  if (command.command === 'version') {
    process.stdout.write(`${JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version}\n`);
    return EXIT_PASS;
  }
  const results: CheckResult[] = [];
  const progress = process.stderr.isTTY ? progressLine() : undefined;
  for (const file of command.files) {
    try {
      const result = await checkAllInterleavings(file, { ...command.options, ...(progress ? { onProgress: progress.update } : {}) });
      progress?.clear();
      results.push(result);
      if (!command.json) process.stdout.write(`${file}\n${renderCheck(result)}\n`);
    } catch (error) {
      progress?.clear();
      if (error instanceof BuildError || error instanceof OptionError || error instanceof ReplayFormatError)
        return fail(error.message);
      throw error;
    }
  }
  if (command.json) {
    const json = results.length === 1 ? toJson(results[0]!) : { files: results.map(toJson) };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  }
  const tests = results.flatMap((result) => result.tests);
  if (tests.some((test) => test.status === 'error')) return EXIT_INPUT;
  return tests.some((test) => test.status === 'fail') ? EXIT_BUG : EXIT_PASS;
}

function fail(message: string): number {
  process.stderr.write(`weft: ${message}\n`);
  return EXIT_INPUT;
}

function progressLine() {
  return {
    update(progress: { test: string; bound: number; executions: number; elapsedMs: number }) {
      const rate = Math.round(progress.executions / Math.max(progress.elapsedMs / 1000, 1e-3));
      process.stderr.write(`\r\x1b[K${progress.test}: bound ${progress.bound} · ${progress.executions.toLocaleString('en-US')} executions · ${rate.toLocaleString('en-US')}/s · ${formatMs(progress.elapsedMs)}`);
    },
    clear() {
      process.stderr.write('\r\x1b[K');
    },
  };
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`weft: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT_INPUT;
  },
);
