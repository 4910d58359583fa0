// Text rendering of results: a pass line per test, or the counterexample: a headline (what
// failed, where, after how many executions; how it was found in plain words), a table with
// one column per thread that takes part in the failure, the failing step last, the heap
// objects it names, the execution's own output and the replay string. The counterexample
// fits the terminal: long runs of one thread fold the rows that do not lead to the failure,
// a source line shared by consecutive rows is printed once, values are never cut (the JSON
// keeps every step).
import { basename } from 'node:path';

import pc from 'picocolors';

import type { CheckResult, TestResult } from '../check.js';
import type { Bug, BugLocation, BugStep, RaceAccess } from './bug.js';
import { inTraceOrder, isStep } from './data-flow.js';
import { foldRepeats } from './repeats.js';
import { counted, withThousands } from '../numbers.js';
import { TEST_LINE_HANGING, UNBREAKABLE_SPACE, terminalWidth, visibleLength, wrapText, wrapWords } from './wrap.js';

type Colors = ReturnType<typeof pc.createColors>;

export interface RenderOptions {
  color?: boolean;
  /** characters per line (default: the terminal's, else 100) */
  width?: number;
  /** say how the search went too (the guarantee, in the strategies' own terms) */
  verbose?: boolean;
}

const MAX_ROWS = 400;
const MAX_REPLAY_TEXT = 1000;
/** a run of one thread longer than this shows its first and last rows only */
const FOLD_RUN = 8;
const FOLD_KEEP_FIRST = 2;
const FOLD_KEEP_LAST = 3;
/** fewer rows than this are shown rather than folded */
const MIN_FOLD = 3;
const MIN_CELL = 12;
/** the source text keeps at least this much room, although the longest rows then push their file:line on */
const MIN_SOURCE = 24;
const MAX_CELL = 34;
/** "»1234  " before the cells */
const STEP_COLUMN = 7;

export function renderCheck(result: Pick<CheckResult, 'tests' | 'notRun'>, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const notRun = (result.notRun ?? []).map((name) => testLine(`${c.dim('-')} ${name}  ${c.dim(NOT_RUN)}`, widthOf(options)));
  return [...result.tests.map((test) => renderTest(test, options)), ...notRun].join('\n');
}

/** What a test, or a file, that an interrupt kept from being explored shows. */
export const NOT_RUN = 'not run (interrupted)';

export function renderTest(test: TestResult, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const width = widthOf(options);
  // a line may break between the facts and inside the count, never inside the time
  const stats = `${counted(test.executions, 'execution')} · ${formatMs(test.elapsedMs).replace(' ', UNBREAKABLE_SPACE)}`;
  if (test.status === 'pass' && test.partial)
    return `${testLine(`${c.yellow('~')} ${test.name}  ${c.yellow(`partial: ${test.guarantee}`)}${c.dim(` · ${stats}`)}`, width)}${renderWarnings(test, c, width)}`;
  if (test.status === 'pass') return `${testLine(`${c.green('✓')} ${test.name}  ${c.dim(`${stats} · ${test.guarantee}`)}`, width)}${renderWarnings(test, c, width)}`;
  if (test.status === 'error') return testLine(`${c.red('✗')} ${test.name}  ${c.red(test.error ?? 'error')}`, width);
  const story = [foundStory(test), ...(options.verbose ? [test.guarantee] : [])].filter((line) => line !== '');
  const header = bugHeader(test.bug!, width, c, { lead: `${c.red('✗')} ${test.name}  `, stats, story });
  return `${header}\n${indent(renderBody(test.bug!, { ...options, width: width - 2 }, c))}${renderWarnings(test, c, width)}`;
}

/** A test's mark, name and outcome, wrapped to the width. */
function testLine(text: string, width: number): string {
  return wrapText(text, width, TEST_LINE_HANGING).join('\n');
}

/** How the bug was found, in plain words: "found after 5 executions; no schedule with fewer preemptions fails". */
function foundStory(test: TestResult): string {
  if (!test.found || !test.bug) return '';
  const { preemptions } = test.bug;
  const fewer = preemptions === 0 ? 'it needs no preemption'
    : test.found.fewest ? 'no schedule with fewer preemptions fails'
    : 'schedules with fewer preemptions were not all explored: one of them may fail too';
  return `found after ${counted(test.found.executions, 'execution')}${test.sampled ? ' (by random sampling)' : ''}; ${fewer}`;
}

/** A bug found past maxBound, in one line: what fails, what it needs, how to replay it. */
export function beyondBound(bug: Bug): string {
  return `${headline(bug)}, needing ${counted(bug.preemptions, 'preemption')} (raise maxBound to fail on it; replay: ${bug.schedule})`;
}

/** The race warnings, the bug beyond maxBound and a strategy's fallback under a test's line, each wrapped to the width. */
function renderWarnings(test: TestResult, c: Colors, width: number): string {
  const notes = [
    ...(test.fallback ? [`${c.yellow('note:')} ${test.fallback}`] : []),
    ...(test.warnings ?? []).map((warning) => `${c.yellow('warning:')} ${warning.message}`),
    ...(test.beyondBound ? [`${c.yellow('beyond maxBound:')} ${beyondBound(test.beyondBound)}`] : []),
  ];
  return notes.flatMap((note) => wrapText(note, width - 2, 4)).map((line) => `\n  ${line}`).join('');
}

/** What failed, in one phrase: the first line of a counterexample. */
export function headline(bug: Bug): string {
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
  return options.width ?? terminalWidth();
}

export function renderBug(bug: Bug, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  return `${bugHeader(bug, widthOf(options), c)}\n${renderBody(bug, options, c)}`;
}

/**
 * What failed, where, and at what cost, wrapped to the width: the headline (after `lead`, a
 * test's mark and name), then where and in which thread with `stats` (executions, time), then `story`.
 */
function bugHeader(bug: Bug, width: number, c: Colors, extra: { lead?: string; stats?: string; story?: string[] } = {}): string {
  const lead = extra.lead ?? '';
  const leadWidth = visibleLength(lead);
  const [first = '', ...more] = wrapText(headline(bug), width - leadWidth, 2);
  const headlines = [`${lead}${c.bold(c.red(first))}`, ...more.map((line) => c.bold(c.red(`${' '.repeat(leadWidth)}${line}`)))];
  const indentBy = lead ? 2 : 0;
  const where = bug.location ? `at ${bug.location.file}:${bug.location.line}` : '';
  const spent = bug.delays === undefined ? counted(bug.preemptions, 'preemption') : `${counted(bug.delays, 'delay')} (${counted(bug.preemptions, 'preemption')})`;
  const facts = [`${where}${bug.thread >= 0 ? ` in thread T${bug.thread}` : ''}`.trim(), spent, ...(extra.stats ? [extra.stats] : [])].filter((fact) => fact !== '');
  // facts break between each other, never inside one ("207.3 ms")
  const details = [...wrapWords(facts, width - indentBy, ' · '), ...(extra.story ?? []).flatMap((text) => wrapText(text, width - indentBy, 2))]
    .map((line) => c.dim(`${' '.repeat(indentBy)}${line}`));
  return [...headlines, ...details].join('\n');
}

/** The trace, the heap objects it names, the threads at the end, the output, the replay string and what a race breaks. */
function renderBody(bug: Bug, options: RenderOptions, c: Colors): string {
  const width = widthOf(options);
  const lines = [
    '',
    ...renderTable(bug, width, c),
    ...renderHeapObjects(bug, width, c),
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
    lines.push('', ...wrapText(`what the race breaks, exploring again with ${variable} as a scheduling point:`, width).map((line) => c.bold(line)),
      indent(renderBug(bug.consequence, { ...options, width: width - 2 })));
  }
  return lines.join('\n');
}

/** The legend of the heap objects the trace names: each one's size, allocation and free, once. */
function renderHeapObjects(bug: Bug, width: number, c: Colors): string[] {
  if (!bug.heapObjects?.length) return [];
  const nameWidth = Math.max(...bug.heapObjects.map((object) => object.name.length));
  const at = (location: BugLocation | undefined) => (location ? ` at ${basename(location.file)}:${location.line}` : '');
  return ['', c.bold('heap objects:'), ...bug.heapObjects.flatMap((object) => {
    const freed = object.freedBy === undefined ? '' : `, freed by T${object.freedBy}${at(object.freed)}`;
    return wrapText(`${object.name.padEnd(nameWidth)}  ${counted(object.size, 'byte')}, allocated${at(object.allocated)}${freed}`, width - 2, nameWidth + 2)
      .map((line) => `  ${line}`);
  })];
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
  /** it leads to the failure: never folded away */
  keep?: boolean;
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
  const locationWidth = Math.min(32, Math.max(0, ...visible.map((row) => locationText(row).length)));
  // a value longer than its cell runs on into the empty cells beside it: the source column
  // starts past the longest such row, as far as the width leaves room for file:line
  const columnOf = (row: Row) => (oneColumn ? 0 : columns.indexOf(row.thread));
  const needed = Math.max(columns.length * cell, ...visible.filter((row) => !row.folded).map((row) => columnOf(row) * cell + row.text.length + 2));
  const tableWidth = Math.max(columns.length * cell, Math.min(needed, width - STEP_COLUMN - locationWidth - 2 - MIN_SOURCE));
  const header = `${'step'.padStart(STEP_COLUMN - 2)}  ${(oneColumn ? 'thread' : columns.map((t) => `T${t}`.padEnd(cell)).join('')).padEnd(tableWidth)}source`;
  const hidden = threadsOf(bug).filter((t) => !shown.has(t));
  let previousLocation = '';
  const lines = visible.map((row) => {
    const lead = ' '.repeat(columnOf(row) * cell);
    if (row.folded) return c.dim(`${' '.repeat(STEP_COLUMN)}${lead}${row.folded}`);
    const marker = row.preemption ? c.yellow('»') : ' ';
    const stepText = row.step === undefined ? '' : String(row.step);
    const cells = `${lead}${row.text}`;
    // never cut: a row longer than the table pushes its own file:line on
    const body = cells.length + 2 <= tableWidth ? cells.padEnd(tableWidth) : `${cells}  `;
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
    c.dim(`  ${c.yellow('»')} = preemption (switch away from a thread that could have continued${wentOnAfterYield(bug) ? ', or a thread going on right after it yielded while another could run' : ''})`),
    ...(hidden.length ? wrapText(`not shown: ${hidden.map((t) => `T${t}`).join(', ')} (no step touches what the failing threads touch)`, width - 2, 2) : [])
      .map((line) => c.dim(`  ${line}`)),
  ];
}

/** Whether a step shown is a preemption of its thread's own: it went on right after it yielded (sched_yield may return at once). */
const wentOnAfterYield = (bug: Bug): boolean =>
  bug.steps.some((step, index) => step.preemption && index > 0 && bug.steps[index - 1]!.thread === step.thread);

function tableRows(bug: Bug): Row[] {
  const rows: Row[] = [];
  const accesses = bug.kind === 'race' ? bug.race.accesses : [];
  const logged = bug.accesses?.some((access) => access.race) ?? false;
  // a free or an atomic access is a step of its own, and the earlier access may be in the log: those rows are the racing ones
  const isStepOfItsOwn = (access: RaceAccess) => access.access === 'free' || access.atomic === true;
  const raceRows = accesses.map((access, index): Row | undefined => isStepOfItsOwn(access) || (index === 0 && logged) ? undefined : ({
    thread: access.thread, text: `${access.access} ${bug.kind === 'race' ? bug.race.variable : ''} (race)`, failing: index === 1, keep: true,
    ...(access.location ? { location: access.location } : {}), ...(access.source ? { source: access.source } : {}),
  }));
  const last = bug.steps.length - 1;
  const failingStep = accesses.length === 0 || (accesses[1] !== undefined && isStepOfItsOwn(accesses[1])) ? last : -1;
  const ordered = inTraceOrder(bug.steps, bug.accesses ?? []);
  ordered.forEach((row, index) => {
    const step = isStep(row) ? row : undefined;
    // a free or an atomic access that races is a step of its own
    const racingStep = step !== undefined && accesses.some((access) => isStepOfItsOwn(access) && access.afterStep === step.step && (access.access === 'free') === (step.op === 'free'));
    rows.push({
      thread: row.thread, text: isStep(row) ? `${stepText(row)}${racingStep ? ' (race)' : ''}` : `${row.access} ${row.target} = ${row.valueText}${row.race ? ' (race)' : ''}`,
      ...(step ? { step: step.step, preemption: step.preemption, failing: step.step === failingStep } : {}),
      ...(row.leadsToFailure || racingStep || (!isStep(row) && row.race) ? { keep: true } : {}),
      ...(row.location ? { location: row.location } : {}), ...(row.source ? { source: row.source } : {}),
    });
    // a racing access not in the log comes after the step it followed and that step's accesses
    const next = ordered[index + 1];
    if (next && !isStep(next)) return;
    const after = isStep(row) ? row.step : row.afterStep;
    if (after === undefined) return; // a racing access before any step comes first (below)
    accesses.forEach((access, side) => {
      const raceRow = raceRows[side];
      if (raceRow && access.afterStep === after) rows.push(raceRow);
    });
  });
  // an access that ran before its thread's first step (T0's, before anything was scheduled) comes first
  accesses.forEach((access, index) => {
    const raceRow = raceRows[index];
    if (raceRow && access.afterStep === undefined) rows.splice(0, 0, raceRow);
  });
  return rows;
}

/** file:line, the file without its directory (the headline has the path) */
function locationText(row: Row): string {
  return row.location ? `${basename(row.location.file)}:${row.location.line}` : '';
}

/** A step as a row: `exchange lock_word: 0 → 1`, `cas s.top: &node#2 → &node#3 (failed: was &node#1)`, `read counter = 0`. */
export function stepText(step: BugStep): string {
  const target = step.target === undefined ? '' : ` ${step.target}`;
  const value = step.valueText ?? (step.value !== undefined ? String(step.value) : undefined);
  const notes = step.order === undefined ? [] : [step.order];
  if (step.function === 'cas') {
    notes.unshift(step.succeeded ? 'succeeded' : `failed: was ${value}`);
    return `cas${target}: ${step.expectedText} → ${step.writtenText} (${notes.join('; ')})`;
  }
  const order = notes.length ? ` (${notes.join('; ')})` : '';
  if (step.function !== undefined) return `${step.function}${target}: ${value} → ${step.writtenText}${order}`;
  if (value === undefined) return `${step.op}${target}${order}`;
  return `${step.op}${target}${step.op === 'choose' ? ' →' : ' ='} ${value}${order}`;
}

/** A replay string too long to copy from a terminal (a sampler's thousands of switches) is left to --json. */
function replayText(schedule: string): string {
  if (schedule.length <= MAX_REPLAY_TEXT) return schedule;
  return `${withThousands(schedule.length)} characters, too long to show here: --json gives it (bug.schedule)`;
}

/** A loop's rows repeated back to back: one iteration and how often it came round again. */
function foldLoops(rows: Row[]): Row[] {
  const key = (row: Row) => `${row.thread}\0${row.text}\0${row.location?.file}:${row.location?.line}\0${row.preemption === true}\0${row.folded}`;
  return foldRepeats(rows, key, (iteration, more) => [...iteration,
    { thread: iteration[0]!.thread, text: '', folded: `↻ ${iteration.length === 1 ? 'the row above repeats' : `the ${iteration.length} rows above repeat`} ${more} more time${more === 1 ? '' : 's'}` }]);
}

/**
 * In a run of one thread longer than FOLD_RUN, past its first rows and before its last, a
 * stretch of rows that lead nowhere near the failure is folded into one line; rows that lead
 * to it never are, and the last run (the failure's) shows whole.
 */
function foldRuns(rows: Row[]): Row[] {
  const folded: Row[] = [];
  for (let start = 0; start < rows.length; ) {
    let end = start;
    while (end + 1 < rows.length && rows[end + 1]!.thread === rows[start]!.thread) end++;
    const run = rows.slice(start, end + 1);
    if (run.length > FOLD_RUN && end < rows.length - 1) {
      folded.push(...run.slice(0, FOLD_KEEP_FIRST));
      const middle = run.slice(FOLD_KEEP_FIRST, run.length - FOLD_KEEP_LAST);
      for (let i = 0; i < middle.length; ) {
        let j = i;
        while (j < middle.length && !middle[j]!.keep) j++;
        if (j - i >= MIN_FOLD) folded.push(fold(middle.slice(i, j)));
        else folded.push(...middle.slice(i, j));
        if (j < middle.length) folded.push(middle[j]!);
        i = j + 1;
      }
      folded.push(...run.slice(run.length - FOLD_KEEP_LAST));
    } else folded.push(...run);
    start = end + 1;
  }
  return folded;
}

/** One line for rows of one thread: how many, and their source lines. */
function fold(rows: Row[]): Row {
  const lines = rows.map((row) => row.location?.line).filter((line): line is number => line !== undefined);
  const [low, high] = [Math.min(...lines), Math.max(...lines)];
  const span = lines.length === 0 ? '' : low === high ? ` (line ${low})` : ` (lines ${low}–${high})`;
  return { thread: rows[0]!.thread, text: '', folded: `⋮ ${rows.length} more rows of T${rows[0]!.thread}${span}` };
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

function indent(text: string): string {
  return text.split('\n').map((line) => (line ? `  ${line}` : line)).join('\n');
}

export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
