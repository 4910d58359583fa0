// Text rendering of results: a pass line per test, or the counterexample as a table
// with one column per thread that takes part in the failure, the failing step last, the
// execution's own output and the replay string. The table fits the terminal: runs of one
// thread are folded, a source line shared by consecutive rows is printed once, values
// are never cut (the JSON keeps every step).
import { basename } from 'node:path';

import pc from 'picocolors';

import type { CheckResult, TestResult } from '../check.js';
import type { Bug, BugLocation, BugStep } from './bug.js';
import { FOUND_BY } from './guarantee.js';
import { foldRepeats } from './repeats.js';
import { counted, withThousands } from '../numbers.js';

type Colors = ReturnType<typeof pc.createColors>;

export interface RenderOptions {
  color?: boolean;
  /** characters per line (default: the terminal's, else 100) */
  width?: number;
}

const DEFAULT_WIDTH = 100;
const MAX_ROWS = 400;
const MAX_REPLAY_TEXT = 1000;
/** a run of one thread longer than this shows its first and last rows only */
const FOLD_RUN = 8;
const FOLD_KEEP_FIRST = 2;
const FOLD_KEEP_LAST = 3;
const MIN_CELL = 12;
const MAX_CELL = 34;
/** "»1234  " before the cells */
const STEP_COLUMN = 7;

export function renderCheck(result: Pick<CheckResult, 'tests' | 'notRun'>, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const notRun = (result.notRun ?? []).map((name) => `${c.dim('-')} ${name}  ${c.dim(NOT_RUN)}`);
  return [...result.tests.map((test) => renderTest(test, options)), ...notRun].join('\n');
}

/** What a test, or a file, that an interrupt kept from being explored shows. */
export const NOT_RUN = 'not run (interrupted)';

export function renderTest(test: TestResult, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const stats = `${counted(test.executions, 'execution')} · ${formatMs(test.elapsedMs)}`;
  if (test.status === 'pass' && test.partial)
    return `${c.yellow('~')} ${test.name}  ${c.yellow(`partial: ${test.guarantee}`)}${c.dim(` · ${stats}`)}${renderWarnings(test, c)}`;
  if (test.status === 'pass')
    return `${c.green('✓')} ${test.name}  ${c.dim(`${stats} · ${test.guarantee}`)}${renderWarnings(test, c)}`;
  if (test.status === 'error') return `${c.red('✗')} ${test.name}  ${c.red(test.error ?? 'error')}`;
  const bug = test.bug!;
  const inner = { ...options, width: widthOf(options) - 2 };
  const how = test.guarantee.startsWith(FOUND_BY) ? ` · ${test.guarantee}` : '';
  return `${c.red('✗')} ${test.name}  ${c.dim(stats + how)}\n${indent(renderBug(bug, inner))}${renderWarnings(test, c)}`;
}

/** A bug found past maxBound, in one line: what fails, what it needs, how to replay it. */
export function beyondBound(bug: Bug): string {
  return `${headline(bug)}, needing ${counted(bug.preemptions, 'preemption')} (raise maxBound to fail on it; replay: ${bug.schedule})`;
}

function renderWarnings(test: TestResult, c: Colors): string {
  const beyond = test.beyondBound
    ? `\n  ${c.yellow('beyond maxBound:')} ${beyondBound(test.beyondBound)}`
    : '';
  return (test.warnings ?? []).map((warning) => `\n  ${c.yellow('warning:')} ${warning.message}`).join('') + beyond;
}

function headline(bug: Bug): string {
  switch (bug.kind) {
    case 'assertion':
      return `assertion failed: ${bug.message}`;
    case 'deadlock':
    case 'livelock':
    case 'step-limit':
    case 'race':
      return bug.message;
    default:
      return `${bug.kind}: ${bug.message}`;
  }
}

function widthOf(options: RenderOptions): number {
  return options.width ?? (process.stdout.columns || DEFAULT_WIDTH);
}

export function renderBug(bug: Bug, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const width = widthOf(options);
  const where = bug.location ? ` at ${bug.location.file}:${bug.location.line}` : '';
  const spent = bug.delays === undefined ? counted(bug.preemptions, 'preemption') : `${counted(bug.delays, 'delay')} (${counted(bug.preemptions, 'preemption')})`;
  const lines = [
    c.bold(c.red(headline(bug))),
    c.dim(`${where.trim()}${bug.thread >= 0 ? ` in thread T${bug.thread}` : ''} · ${spent}`),
    '',
    ...renderTable(bug, width, c),
  ];
  const unfinished = bug.threads.filter((thread) => thread.state !== 'finished');
  if (bug.kind === 'deadlock' || bug.kind === 'livelock' || bug.kind === 'step-limit' || bug.kind === 'hang') {
    lines.push('', c.bold('threads at the end:'));
    for (const thread of unfinished)
      lines.push(`  T${thread.thread} ${thread.state}: ${thread.waitingFor}${thread.location ? ` at ${thread.location.file}:${thread.location.line}` : ''}${thread.source ? c.dim(`  ${thread.source}`) : ''}`);
  }
  if (bug.output) lines.push('', c.bold('output of this execution:'), ...bug.output.replace(/\n$/, '').split('\n').map((line) => `  ${line}`));
  lines.push('', `${c.bold('replay:')} ${replayText(bug.schedule)}`);
  if (bug.consequence) {
    const variable = bug.kind === 'race' ? bug.race.variable : 'the racy location';
    lines.push('', c.bold(`what the race breaks, with ${variable} as a scheduling point:`), indent(renderBug(bug.consequence, { ...options, width: width - 2 })));
  }
  return lines.join('\n');
}

/** One table row: a step, a racing access (no step in drf mode), or a fold. */
interface Row {
  thread: number;
  text: string;
  step?: number;
  preemption?: boolean;
  location?: BugLocation;
  source?: string;
  failing?: boolean;
  folded?: string;
}

function renderTable(bug: Bug, width: number, c: Colors): string[] {
  const shown = new Set(bug.threadsTakingPart);
  const threads = [...shown].sort((a, b) => a - b);
  // too many threads for a column each: one column, each row naming its thread
  const oneColumn = threads.length * MIN_CELL > width * 0.55;
  const columns = oneColumn ? [-1] : threads;
  const rows = foldRuns(foldLoops(tableRows(bug).filter((row) => shown.has(row.thread))))
    .map((row) => (oneColumn && !row.folded ? { ...row, text: `T${row.thread}: ${row.text}` } : row));
  const omitted = Math.max(0, rows.length - MAX_ROWS);
  const visible = rows.slice(omitted);
  const widest = Math.max(...visible.filter((row) => !row.folded).map((row) => row.text.length), 2);
  // the cells get at most about half the width: the rest is for file:line and the source
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, widest + 2, Math.floor((width * 0.55 - STEP_COLUMN) / columns.length)));
  const header = `${'step'.padStart(STEP_COLUMN - 2)}  ${oneColumn ? 'thread'.padEnd(cell) : columns.map((t) => `T${t}`.padEnd(cell)).join('')}source`;
  const hidden = threadsOf(bug).filter((t) => !shown.has(t));
  const locationWidth = Math.min(32, Math.max(0, ...visible.map((row) => locationText(row).length)));
  let previousLocation = '';
  const lines = visible.map((row) => {
    const column = oneColumn ? 0 : columns.indexOf(row.thread);
    const lead = ' '.repeat(column * cell);
    if (row.folded) return c.dim(`${' '.repeat(STEP_COLUMN)}${lead}${row.folded}`);
    const marker = row.preemption ? c.yellow('»') : ' ';
    const stepText = row.step === undefined ? '' : String(row.step);
    const cells = `${lead}${row.text}`;
    // a value longer than its cell runs on into the empty cells beside it, never cut
    const body = cells.length + 2 <= columns.length * cell ? cells.padEnd(columns.length * cell) : `${cells}  `;
    const location = locationText(row);
    // a line shared with the row above is printed once
    const repeated = location !== '' && location === previousLocation;
    previousLocation = location;
    const prefix = `${marker}${stepText.padStart(STEP_COLUMN - 3)}  ${body}`;
    const room = width - visibleLength(prefix) - Math.max(location.length, locationWidth) - 2;
    const source = repeated || !row.source || room < 8 ? '' : `  ${clip(row.source, room)}`;
    const text = repeated ? prefix.trimEnd() : `${prefix}${c.dim(source ? location.padEnd(locationWidth) : location)}${source}`;
    return row.failing ? c.red(text) : text;
  });
  return [
    c.dim(header),
    ...(omitted > 0 ? [c.dim(`  … ${omitted} earlier rows not shown`)] : []),
    ...lines,
    c.dim(`  ${c.yellow('»')} = preemption (switch away from a thread that could have continued)${hidden.length ? `; not shown: ${hidden.map((t) => `T${t}`).join(', ')} (no step touches what the failing threads touch)` : ''}`),
  ];
}

function tableRows(bug: Bug): Row[] {
  const rows: Row[] = [];
  const accesses = bug.kind === 'race' ? bug.race.accesses : [];
  const raceRows = accesses.map((access, index): Row => ({
    thread: access.thread, text: `${access.access} ${bug.kind === 'race' ? bug.race.variable : ''} (race)`, failing: index === 1,
    ...(access.location ? { location: access.location } : {}), ...(access.source ? { source: access.source } : {}),
  }));
  const last = bug.steps.length - 1;
  for (const step of bug.steps) {
    rows.push({
      thread: step.thread, text: stepText(step), step: step.step, preemption: step.preemption,
      failing: accesses.length === 0 && step.step === last,
      ...(step.location ? { location: step.location } : {}), ...(step.source ? { source: step.source } : {}),
    });
    for (const access of bug.accessesNearFailure ?? []) {
      if (access.afterStep !== step.step) continue;
      rows.push({
        thread: access.thread, text: `${access.access} ${access.target} = ${access.valueText}`,
        ...(access.location ? { location: access.location } : {}), ...(access.source ? { source: access.source } : {}),
      });
    }
    accesses.forEach((access, index) => {
      if (access.afterStep === step.step) rows.push(raceRows[index]!);
    });
  }
  // an access that ran before its thread's first step (T0's, before anything was scheduled) comes first
  accesses.forEach((access, index) => {
    if (access.afterStep === undefined) rows.splice(0, 0, raceRows[index]!);
  });
  return rows;
}

/** file:line, the file without its directory (the headline has the path) */
function locationText(row: Row): string {
  return row.location ? `${basename(row.location.file)}:${row.location.line}` : '';
}

function stepText(step: BugStep): string {
  let text = step.op;
  if (step.target !== undefined) text += ` ${step.target}`;
  const value = step.valueText ?? (step.value !== undefined ? String(step.value) : undefined);
  if (value !== undefined) text += step.op === 'choose' ? ` → ${value}` : ` = ${value}`;
  return text;
}

/** A replay string too long to copy from a terminal (a sampler's thousands of switches) is left to --json. */
function replayText(schedule: string): string {
  if (schedule.length <= MAX_REPLAY_TEXT) return schedule;
  return `${withThousands(schedule.length)} characters, too long to show here: --json gives it (bug.schedule)`;
}

/** A loop's rows repeated back to back: one iteration and how often it came round again. */
function foldLoops(rows: Row[]): Row[] {
  const key = (row: Row) => `${row.thread}\0${row.text}\0${row.location?.file}:${row.location?.line}\0${row.preemption === true}\0${row.folded}`;
  return foldRepeats(rows, key, (period, more, first) =>
    ({ thread: first.thread, text: '', folded: `↻ ${period === 1 ? 'the row above repeats' : `the ${period} rows above repeat`} ${more} more time${more === 1 ? '' : 's'}` }));
}

/** Runs of one thread longer than FOLD_RUN keep their first and last rows; the last run (the failure's) shows whole. */
function foldRuns(rows: Row[]): Row[] {
  const folded: Row[] = [];
  for (let start = 0; start < rows.length; ) {
    let end = start;
    while (end + 1 < rows.length && rows[end + 1]!.thread === rows[start]!.thread) end++;
    const run = rows.slice(start, end + 1);
    if (run.length > FOLD_RUN && end < rows.length - 1) {
      const middle = run.slice(FOLD_KEEP_FIRST, run.length - FOLD_KEEP_LAST);
      const lines = middle.map((row) => row.location?.line).filter((line): line is number => line !== undefined);
      const [low, high] = [Math.min(...lines), Math.max(...lines)];
      const span = lines.length === 0 ? '' : low === high ? ` (line ${low})` : ` (lines ${low}–${high})`;
      folded.push(...run.slice(0, FOLD_KEEP_FIRST),
        { thread: run[0]!.thread, text: '', folded: `⋮ ${middle.length} more rows of T${run[0]!.thread}${span}` },
        ...run.slice(run.length - FOLD_KEEP_LAST));
    } else folded.push(...run);
    start = end + 1;
  }
  return folded;
}

/** Every thread in the execution. */
function threadsOf(bug: Bug): number[] {
  const threads = new Set<number>(bug.threads.map((thread) => thread.thread));
  for (const step of bug.steps) threads.add(step.thread);
  return [...threads].sort((a, b) => a - b);
}

function clip(text: string, room: number): string {
  return text.length <= room ? text : `${text.slice(0, Math.max(0, room - 1))}…`;
}

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
function visibleLength(text: string): number {
  return text.replace(ansi, '').length;
}

function indent(text: string): string {
  return text.split('\n').map((line) => (line ? `  ${line}` : line)).join('\n');
}

export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
