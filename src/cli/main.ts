#!/usr/bin/env node
// The weft command: check C test files, replay one execution, join shards, start a project.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { type CheckOptions, type CheckResult, checkAllInterleavings } from '../check.js';
import { ExitStatus, WeftError } from '../errors.js';
import { packageRoot } from '../paths.js';
import { toJson } from '../report/json.js';
import { ShardMergeError, mergeShards, readShardReport } from '../report/merge.js';
import { NOT_RUN, formatMs, renderCheck } from '../report/render.js';
import { worthSaying } from '../report/estimate.js';
import { fitLine, terminalWidth, wrapWords } from '../report/wrap.js';
import { type Command, commandHelp, parseArgs, usage } from './args.js';
import { exampleTest, init } from './init.js';
import { withThousands } from '../numbers.js';

const { PASS: EXIT_PASS, BUG: EXIT_BUG, INPUT: EXIT_INPUT, INTERRUPTED: EXIT_INTERRUPTED } = ExitStatus;

async function main(argv: string[]): Promise<number> {
  let command: Command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof WeftError)) throw error;
    const topic = argv[0] === 'check' || argv[0] === 'replay' || argv[0] === 'merge' ? argv[0] : undefined;
    process.stderr.write(`weft: ${error.message}\n${topic ? `weft ${topic} --help lists the options\n` : `\n${usage}\n`}`);
    return error.exitStatus;
  }
  if (command.command === 'help') {
    process.stdout.write(`${command.topic ? commandHelp(command.topic) : usage}\n`);
    return EXIT_PASS;
  }
  if (command.command === 'version') {
    process.stdout.write(`${JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version}\n`);
    return EXIT_PASS;
  }
  if (command.command === 'merge') return merge(command);
  if (command.command === 'example') {
    process.stdout.write(exampleTest());
    return EXIT_PASS;
  }
  if (command.command === 'init') {
    process.stdout.write(`${init(process.cwd()).join('\n')}\n`);
    return EXIT_PASS;
  }
  // every file is reported, an unusable one as an error; the exit status is the worst
  const reports: object[] = [];
  let status: number = EXIT_PASS;
  const progress = process.stderr.isTTY ? progressLine() : undefined;
  const interrupt = interruptOnSignals(() => progress?.clear());
  for (const file of command.files) {
    if (interrupt.signal.aborted) {
      // not built either: its tests are not known
      if (command.json) reports.push({ file, tests: [], interrupted: true });
      else process.stdout.write(`${file}\n- ${NOT_RUN}\n`);
      continue;
    }
    let result: CheckResult;
    try {
      result = await checkAllInterleavings(file, {
        ...command.options, ...(progress ? { onProgress: progress.update } : {}), onEstimate: (estimate) => sayEstimate(file, estimate, progress), signal: interrupt.signal,
      });
    } catch (error) {
      progress?.clear();
      if (!(error instanceof WeftError)) throw error;
      status = Math.max(status, error.exitStatus);
      if (command.json) reports.push({ file, tests: [], error: error.message, code: error.code });
      else process.stderr.write(`weft: ${error.message}\n`);
      continue;
    }
    progress?.clear();
    reports.push(toJson(result));
    if (!command.json) process.stdout.write(`${file}\n${renderCheck(result, { verbose: command.verbose ?? false })}\n`);
    const partial = result.tests.filter((test) => test.partial && !test.interrupted);
    if (command.options.requireComplete && partial.length > 0 && !command.json)
      process.stderr.write(`${fitLine(`weft: ${partial.map((test) => test.name).join(', ')}: partial (stopped by the budget), a failure with --require-complete`, 2, process.stderr)}\n`);
    status = Math.max(status, fileStatus(result, command.options.requireComplete === true));
  }
  if (command.json) printJson(reports);
  interrupt.release();
  return interrupt.signal.aborted ? EXIT_INTERRUPTED : status;
}

/**
 * The first SIGINT (Ctrl-C) or SIGTERM aborts the returned signal, after `before`: the
 * check stops and reports what it explored. The handlers are then removed, so that a
 * second one ends the process at once, as if weft had none.
 */
function interruptOnSignals(before: () => void): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const release = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = () => {
    release();
    before();
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, release };
}

/** weft merge: the shards' reports joined, shown and judged as weft check shows and judges one run. */
function merge(command: Command): number {
  let merged: ReturnType<typeof mergeShards>;
  try {
    merged = mergeShards(command.files.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        throw new ShardMergeError(`cannot read ${file}`);
      }
      return readShardReport(file, text);
    }));
  } catch (error) {
    if (!(error instanceof WeftError)) throw error;
    process.stderr.write(`weft: ${error.message}\n`);
    return error.exitStatus;
  }
  const requireComplete = command.options.requireComplete === true;
  if (command.json) printJson(merged.map(toJson));
  else for (const result of merged) process.stdout.write(`${result.file}\n${renderCheck(result)}\n`);
  return Math.max(EXIT_PASS, ...merged.map((result) => fileStatus(result, requireComplete)));
}

/** The --json output: one file's report, or `{ files: [...] }` (DESIGN.md 4.1). */
function printJson(reports: object[]): void {
  process.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : { files: reports }, null, 2)}\n`);
}

/** A partial pass (stopped by its budget) passes, unless --require-complete makes it a failure. */
function fileStatus(result: Pick<CheckResult, 'tests'>, requireComplete: boolean): number {
  if (result.tests.some((test) => test.status === 'error')) return EXIT_INPUT;
  const failed = (test: CheckResult['tests'][number]) => test.status === 'fail' || (requireComplete && test.partial === true);
  return result.tests.some(failed) ? EXIT_BUG : EXIT_PASS;
}

/** A long bound's estimate, before it runs, on lines of its own (stderr: a --json report stays whole). */
function sayEstimate(file: string, estimate: Parameters<NonNullable<CheckOptions['onEstimate']>>[0], progress: { clear(): void } | undefined): void {
  if (!worthSaying(estimate)) return;
  progress?.clear();
  const lines = [estimate.line, ...(estimate.farBeyond ? [estimate.farBeyond] : [])];
  process.stderr.write(lines.map((line) => `${fitLine(`weft: ${file} > ${estimate.test}: ${line}`, 2, process.stderr)}\n`).join(''));
}

/**
 * How far the exploration got, on one line of the terminal rewritten in place: the facts that
 * fit its width (a line the terminal wrapped would not be rewritten, but repeated).
 */
function progressLine() {
  return {
    update(progress: { test: string; bound: number; executions: number; elapsedMs: number }) {
      const rate = Math.round(progress.executions / Math.max(progress.elapsedMs / 1000, 1e-3));
      const facts = [`${progress.test}: bound ${progress.bound}`, `${withThousands(progress.executions)} executions`, `${withThousands(rate)}/s`, formatMs(progress.elapsedMs)];
      // a column short of the width: a terminal may move to the next line after writing the last column
      const width = terminalWidth(process.stderr) - 1;
      process.stderr.write(`\r\x1b[K${wrapWords(facts, width, ' · ')[0]!.slice(0, width)}`);
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
