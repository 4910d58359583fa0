// Command-line parsing for `weft check` and `weft replay` (DESIGN.md 4.1), and their help
// text, both from the options schema (src/options.ts). Any mistake is an OptionError
// with code 'usage': one message, exit status 2.
import type { CheckOptions } from '../check.js';
import { OptionError } from '../errors.js';
import { wrapWords as wrap } from '../report/wrap.js';
import {
  type OptionName, commandOptions, defaultText, fileOptionNames, flagSynopsis, isSwitch, optionOfFlag, optionSpec,
} from '../options.js';

type CommandName = 'check' | 'replay';

export interface Command {
  command: CommandName | 'merge' | 'example' | 'init' | 'help' | 'version';
  /** help: the command it is about, if any */
  topic?: CommandName | 'merge';
  files: string[];
  json: boolean;
  /** a counterexample says how the search went in the strategies' own terms too */
  verbose?: boolean;
  options: CheckOptions;
}

const usageError = (message: string) => new OptionError(message, 'usage');

/** What each command does and takes besides options. */
const commands: Record<CommandName, { synopsis: string; summary: string }> = {
  check: {
    synopsis: 'weft check FILE.c...',
    summary: 'Explores the interleavings of every test in each C file.',
  },
  replay: {
    synopsis: 'weft replay FILE.c --schedule weft1:...',
    summary: 'Runs exactly the execution a replay string names (printed with every counterexample).',
  },
};

const JSON_FLAG = { flag: '--json', meaning: 'print one JSON object on stdout' };
const VERBOSE_FLAG = { flag: '--verbose', meaning: 'say how each bug was found in the search strategies\' own terms' };
const EXIT_STATUS = 'exit status: 0 all tests passed (a partial run, stopped by its budget, too, unless --require-complete), 1 a bug was found, 2 the input could not be used, 130 interrupted (SIGINT, SIGTERM: what was explored is reported)';
const FILE_COMMENT = 'Options also come from a `// weft: key=value ...` comment among the first 20 lines of a C file, keys: ' +
  `${fileOptionNames().join(', ')}; flags given here win over it.`;

/** Lines no wider than this */
const WIDTH = 100;

/** weft merge takes no option of the schema but one: it joins reports, it explores nothing */
const MERGE_SYNOPSIS = 'weft merge SHARD.json... [--require-complete] [--json]';
const MERGE_SUMMARY = 'Joins the --json reports of weft check --shard 1/n … n/n (every shard of one exploration, same build and options) into one result.';

/** The command's synopsis with every flag it takes, wrapped (the README's CLI section shows these). */
export function synopsis(command: CommandName | 'merge'): string {
  if (command === 'merge') return MERGE_SYNOPSIS;
  const flags = commandOptions(command)
    .filter((name) => name !== 'replay') // --schedule is part of weft replay's own synopsis
    .map((name) => `[${flagSynopsis(name)}]${optionSpec(name).cli?.repeat ? '...' : ''}`);
  const lead = commands[command].synopsis;
  // continuation lines start under the first argument
  const indent = ' '.repeat(lead.indexOf(' ', 'weft '.length) + 1);
  return wrap([lead, ...flags, `[${JSON_FLAG.flag}]`], WIDTH - indent.length).join(`\n${indent}`);
}

export const usage = `usage:\n${indentLines(synopsis('check'), 2)}\n${indentLines(synopsis('replay'), 2)}\n  ${synopsis('merge')}\n` +
  '  weft example          print a first C test (npx weft example > queue.test.c)\n' +
  '  weft init             write that test, and a Vitest config when the folder has none\n\n' +
  `weft check --help, weft replay --help, weft merge --help: what each option means\n${EXIT_STATUS}`;

/** `weft check --help`: every flag, what it means, its default. */
export function commandHelp(command: CommandName | 'merge'): string {
  const names: OptionName[] = command === 'merge' ? ['requireComplete'] : commandOptions(command);
  const rows: [string, string][] = names.map((name) => [flagSynopsis(name), meaning(name)]);
  rows.push([JSON_FLAG.flag, JSON_FLAG.meaning]);
  if (command !== 'merge') rows.push([VERBOSE_FLAG.flag, VERBOSE_FLAG.meaning]);
  const width = Math.min(28, Math.max(...rows.map(([flag]) => flag.length)) + 2);
  const body = rows.map(([flag, text]) => {
    const lead = flag.length + 2 > width ? `  ${flag}\n${' '.repeat(width + 2)}` : `  ${flag.padEnd(width)}`;
    return lead + wrap(text.split(' '), WIDTH - width - 2).join(`\n${' '.repeat(width + 2)}`);
  });
  const about = command === 'merge' ? wrap(MERGE_SUMMARY.split(' '), WIDTH).join('\n') : `${commands[command].summary}\n${wrap(FILE_COMMENT.split(' '), WIDTH).join('\n')}`;
  return `usage:\n${indentLines(synopsis(command), 2)}\n\n${about}\n\noptions:\n${body.join('\n')}\n\n${EXIT_STATUS}`;
}

function meaning(name: OptionName): string {
  const fallback = defaultText(name);
  const text = optionSpec(name).description.replace(/`/g, '');
  return fallback === undefined ? text : `${text} (default ${fallback})`;
}

function indentLines(text: string, by: number): string {
  return text.split('\n').map((line) => ' '.repeat(by) + line).join('\n');
}

export function parseArgs(argv: readonly string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    const topic = rest[0];
    return { command: 'help', ...(topic === 'check' || topic === 'replay' || topic === 'merge' ? { topic } : {}), files: [], json: false, options: {} };
  }
  if (command === '--version' || command === 'version') return { command: 'version', files: [], json: false, options: {} };
  if (command === 'example' || command === 'init') {
    if (rest.length > 0) throw usageError(`weft ${command} takes no arguments, got '${rest[0]}'`);
    return { command, files: [], json: false, options: {} };
  }
  if (command !== 'check' && command !== 'replay' && command !== 'merge') throw usageError(`unknown command '${command}'`);
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help', topic: command, files: [], json: false, options: {} };
  if (command === 'merge') return parseMerge(rest);

  const files: string[] = [];
  const options: Record<string, unknown> = {};
  let json = false;
  let verbose = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const [written, inlineValue] = arg.startsWith('--') && arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : arg.startsWith('-I') && arg.length > 2 ? ['-I', arg.slice(2)] : [arg, undefined];
    if (written === JSON_FLAG.flag) {
      json = true;
      continue;
    }
    if (written === VERBOSE_FLAG.flag) {
      verbose = true;
      continue;
    }
    if (!written.startsWith('-')) {
      files.push(arg);
      continue;
    }
    const name = optionOfFlag(written);
    if (name === undefined) throw usageError(`unknown option '${written}'`);
    const spec = optionSpec(name);
    if (!spec.commands.includes(command))
      throw usageError(name === 'replay' ? `${written} belongs to weft replay` : `${written} does not apply to weft ${command}`);
    if (isSwitch(name)) {
      options[name] = true;
      continue;
    }
    const text = inlineValue ?? rest[++i];
    if (text === undefined) throw usageError(`${written} needs a value`);
    // a repeatable flag takes one item per use: a path may hold a comma
    const value = spec.kind.check(spec.cli?.repeat ? [text] : spec.kind.fromText(text, written), written);
    options[name] = spec.cli?.repeat ? [...((options[name] as unknown[] | undefined) ?? []), ...(value as unknown[])] : value;
  }
  if (files.length === 0) throw usageError(`weft ${command}: no C file given`);
  if (command === 'replay') {
    if (options.replay === undefined) throw usageError('weft replay needs --schedule weft1:...');
    if (files.length !== 1) throw usageError('weft replay takes exactly one file');
  }
  return { command, files, json, ...(verbose ? { verbose } : {}), options: options as CheckOptions };
}

/** weft merge's arguments: report files, --json, --require-complete. */
function parseMerge(rest: readonly string[]): Command {
  const files: string[] = [];
  let json = false;
  let requireComplete = false;
  for (const arg of rest) {
    if (arg === JSON_FLAG.flag) json = true;
    else if (arg === '--require-complete') requireComplete = true;
    else if (arg.startsWith('-')) throw usageError(`weft merge takes --json and --require-complete, not '${arg}'`);
    else files.push(arg);
  }
  if (files.length === 0) throw usageError('weft merge: no shard report given (the --json output of weft check --shard i/n)');
  return { command: 'merge', files, json, options: requireComplete ? { requireComplete } : {} };
}
