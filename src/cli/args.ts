// Command-line parsing for `weft check` and `weft replay` (DESIGN.md 4.1). Any mistake
// is a UsageError: one message, exit status 2.
import type { CheckOptions, Mode } from '../check.js';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Command {
  command: 'check' | 'replay' | 'help' | 'version';
  files: string[];
  json: boolean;
  options: CheckOptions;
}

export const usage = `usage:
  weft check FILE.c... [--test NAME]... [--max-bound N|unbounded] [--strategy NAME] [--mode drf|sc]
                       [--max-executions N] [--time-budget-ms N] [--max-steps N] [--seed N]
                       [--hang-timeout-ms N]
                       [--json] [--cflags "..."] [-I DIR]... [--source FILE.c]...
                       [--nondet-domain 0,1,...] [--spurious-wakeups] [--require-complete]
  weft replay FILE.c --schedule weft1:... [--json] [--cflags "..."] [-I DIR]...

exit status: 0 all tests passed (a partial run, stopped by its budget, too, unless --require-complete),
1 a bug was found, 2 the input could not be used`;

const numberFlags: Record<string, keyof CheckOptions> = {
  '--max-bound': 'maxBound',
  '--max-executions': 'maxExecutions',
  '--time-budget-ms': 'timeBudgetMs',
  '--max-steps': 'maxSteps',
  '--hang-timeout-ms': 'hangTimeoutMs',
  '--seed': 'seed',
};

export function parseArgs(argv: readonly string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h')
    return { command: 'help', files: [], json: false, options: {} };
  if (command === '--version' || command === 'version') return { command: 'version', files: [], json: false, options: {} };
  if (command !== 'check' && command !== 'replay') throw new UsageError(`unknown command '${command}'`);

  const files: string[] = [];
  const tests: string[] = [];
  const includeDirs: string[] = [];
  const sources: string[] = [];
  const options: CheckOptions = {};
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const [flag, inlineValue] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      if (inlineValue !== undefined) return inlineValue;
      const next = rest[++i];
      if (next === undefined) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    if (flag === '--max-bound' && (inlineValue ?? rest[i + 1]) === 'unbounded') {
      value();
      options.maxBound = Number.POSITIVE_INFINITY;
    } else if (flag in numberFlags) {
      const text = value();
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`${flag} needs a whole number below 2^53, got '${text}'`);
      (options as Record<string, number>)[numberFlags[flag]!] = Number(text);
    } else if (flag === '--test') tests.push(value());
    else if (flag === '--strategy') options.strategy = value();
    else if (flag === '--mode') {
      const mode = value();
      if (mode !== 'drf' && mode !== 'sc') throw new UsageError(`--mode must be drf or sc, got '${mode}'`);
      options.mode = mode as Mode;
    } else if (flag === '--json') json = true;
    else if (flag === '--cflags') options.cflags = value();
    else if (flag === '-I' || flag === '--include') includeDirs.push(value());
    else if (flag.startsWith('-I') && flag.length > 2) includeDirs.push(flag.slice(2));
    else if (flag === '--source') sources.push(value());
    else if (flag === '--schedule') options.replay = value();
    else if (flag === '--nondet-domain') {
      const text = value();
      if (!/^-?\d+(,-?\d+)*$/.test(text)) throw new UsageError(`--nondet-domain needs comma-separated integers, got '${text}'`);
      options.nondetDomain = text.split(',').map(Number);
    } else if (flag === '--spurious-wakeups') options.spuriousWakeups = true;
    else if (flag === '--require-complete') options.requireComplete = true;
    else if (flag.startsWith('-')) throw new UsageError(`unknown option '${flag}'`);
    else files.push(arg);
  }
  if (files.length === 0) throw new UsageError(`weft ${command}: no C file given`);
  if (command === 'replay') {
    if (options.replay === undefined) throw new UsageError('weft replay needs --schedule weft1:...');
    if (files.length !== 1) throw new UsageError('weft replay takes exactly one file');
  } else if (options.replay !== undefined) throw new UsageError('--schedule belongs to weft replay');
  if (tests.length) options.test = tests;
  if (includeDirs.length) options.includeDirs = includeDirs;
  if (sources.length) options.sources = sources;
  return { command, files, json, options };
}
