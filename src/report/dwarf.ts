// The types of a harness library's variables, from its DWARF debug info as binutils
// prints it (`readelf --debug-dump=info`, which decodes DWARF 4 and 5 alike). What a
// counterexample needs: each global or static variable's address and type, each
// function's locals that live in its stack frame, and what a type is made of (struct
// members, array elements, base types with their encoding, enumerators).
export type Encoding = 'signed' | 'unsigned' | 'float' | 'bool' | 'signed-char' | 'unsigned-char' | 'other';

export type DwarfType =
  | { kind: 'base'; name: string; size: number; encoding: Encoding }
  | { kind: 'pointer'; size: number; target?: number }
  | { kind: 'struct'; name?: string; size: number; members: Member[] }
  | { kind: 'union'; name?: string; size: number; members: Member[] }
  | { kind: 'array'; element?: number; counts: (number | undefined)[] }
  | { kind: 'enum'; name?: string; size: number; signed: boolean; values: Map<bigint, string> }
  | { kind: 'typedef'; name: string; target?: number }
  /** const, volatile, _Atomic, restrict: the same object */
  | { kind: 'qualified'; target?: number };

export interface Member {
  name?: string;
  offset: number;
  type?: number;
}

export interface Variable {
  name: string;
  /** offset of the variable in the library (its symbol value) */
  address: number;
  type?: number;
}

/** A local variable or parameter with a fixed place in its function's stack frame. */
export interface FrameVariable {
  name: string;
  /** from the frame's canonical frame address (DW_OP_call_frame_cfa as the frame base) */
  frameOffset: number;
  type?: number;
}

/** A function's code, [address, end) as library offsets, and the locals its frame holds (inlined callees' included). */
export interface FrameFunction {
  name: string;
  address: number;
  end: number;
  locals: FrameVariable[];
}

export interface DebugInfo {
  types: Map<number, DwarfType>;
  /** sorted by address */
  variables: Variable[];
  /** sorted by address */
  functions: FrameFunction[];
  /** each compile unit's directory, in order: what the line table's relative file names are relative to */
  compileDirectories: string[];
}

const encodings: Record<number, Encoding> = { 2: 'bool', 4: 'float', 5: 'signed', 6: 'signed-char', 7: 'unsigned', 8: 'unsigned-char' };

interface Die {
  tag: string;
  offset: number;
  attributes: Map<string, string>;
  children: Die[];
}

/** readelf names an attribute's form first in some versions: "(data1) 4", "(strp) (offset: 0x5d): name" */
const form = /^\([a-z_]+\d*\)\s*/;

/** readelf's text: a line per DIE ("<depth><offset>: Abbrev Number: n (DW_TAG_x)"), a line per attribute. */
export function parseDebugInfo(text: string): DebugInfo {
  const roots: Die[] = [];
  const open: Die[] = [];
  let current: Die | undefined;
  for (const line of text.split('\n')) {
    const die = /^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)(?: \((DW_TAG_\w+)\))?/.exec(line);
    if (die) {
      const depth = Number(die[1]);
      open.length = Math.min(open.length, depth);
      if (die[3] === '0' || !die[4]) {
        current = undefined;
        continue;
      }
      current = { tag: die[4], offset: parseInt(die[2]!, 16), attributes: new Map(), children: [] };
      (depth === 0 || !open[depth - 1] ? roots : open[depth - 1]!.children).push(current);
      open[depth] = current;
      continue;
    }
    const attribute = /^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s?(.*)$/.exec(line);
    if (attribute && current) current.attributes.set(attribute[1]!, attribute[2]!.trim().replace(form, ''));
  }

  const types = new Map<number, DwarfType>();
  const variables: Variable[] = [];
  const functions: FrameFunction[] = [];
  const byOffset = new Map<number, Die>();
  const index = (die: Die) => {
    byOffset.set(die.offset, die);
    die.children.forEach(index);
  };
  roots.forEach(index);
  const visit = (die: Die) => {
    const type = typeOf(die);
    if (type) types.set(die.offset, type);
    if (die.tag === 'DW_TAG_variable') {
      const variable = variableOf(die, byOffset);
      if (variable) variables.push(variable);
    }
    if (die.tag === 'DW_TAG_subprogram') {
      const frameFunction = frameFunctionOf(die, byOffset);
      if (frameFunction) functions.push(frameFunction);
    }
    die.children.forEach(visit);
  };
  roots.forEach(visit);
  variables.sort((a, b) => a.address - b.address);
  functions.sort((a, b) => a.address - b.address);
  const compileDirectories = roots.filter((die) => die.tag === 'DW_TAG_compile_unit').map((unit) => nameOf(unit.attributes.get('DW_AT_comp_dir') ?? ''));
  return { types, variables, functions, compileDirectories };
}

function typeOf(die: Die): DwarfType | undefined {
  const a = die.attributes;
  const name = a.has('DW_AT_name') ? nameOf(a.get('DW_AT_name')!) : undefined;
  const size = numberOf(a.get('DW_AT_byte_size')) ?? 0;
  const target = referenceOf(a.get('DW_AT_type'));
  switch (die.tag) {
    case 'DW_TAG_base_type':
      return { kind: 'base', name: name ?? '?', size, encoding: encodings[numberOf(a.get('DW_AT_encoding')) ?? 0] ?? 'other' };
    case 'DW_TAG_pointer_type':
      return { kind: 'pointer', size: size || 8, ...(target !== undefined ? { target } : {}) };
    case 'DW_TAG_structure_type':
    case 'DW_TAG_union_type':
      return {
        kind: die.tag === 'DW_TAG_structure_type' ? 'struct' : 'union',
        ...(name !== undefined ? { name } : {}),
        size,
        members: die.children.filter((child) => child.tag === 'DW_TAG_member').map((member) => {
          const memberName = member.attributes.get('DW_AT_name');
          const memberType = referenceOf(member.attributes.get('DW_AT_type'));
          return {
            ...(memberName !== undefined ? { name: nameOf(memberName) } : {}),
            offset: memberOffset(member.attributes.get('DW_AT_data_member_location')),
            ...(memberType !== undefined ? { type: memberType } : {}),
          };
        }),
      };
    case 'DW_TAG_array_type':
      return {
        kind: 'array',
        ...(target !== undefined ? { element: target } : {}),
        counts: die.children.filter((child) => child.tag === 'DW_TAG_subrange_type').map((range) => {
          const count = numberOf(range.attributes.get('DW_AT_count'));
          const upper = numberOf(range.attributes.get('DW_AT_upper_bound'));
          return count ?? (upper !== undefined ? upper + 1 : undefined);
        }),
      };
    case 'DW_TAG_enumeration_type': {
      const values = new Map<bigint, string>();
      for (const child of die.children) {
        const value = child.attributes.get('DW_AT_const_value');
        if (child.tag === 'DW_TAG_enumerator' && value !== undefined && /^-?\d+/.test(value))
          values.set(BigInt(/^-?\d+/.exec(value)![0]), nameOf(child.attributes.get('DW_AT_name') ?? '?'));
      }
      const signed = [...values.keys()].some((value) => value < 0n) || numberOf(a.get('DW_AT_encoding')) === 5;
      return { kind: 'enum', ...(name !== undefined ? { name } : {}), size: size || 4, signed, values };
    }
    case 'DW_TAG_typedef':
      return { kind: 'typedef', name: name ?? '?', ...(target !== undefined ? { target } : {}) };
    case 'DW_TAG_const_type':
    case 'DW_TAG_volatile_type':
    case 'DW_TAG_atomic_type':
    case 'DW_TAG_restrict_type':
      return { kind: 'qualified', ...(target !== undefined ? { target } : {}) };
    default:
      return undefined;
  }
}

/** A variable with a fixed address (globals and statics); its name and type may sit on its declaration. */
function variableOf(die: Die, byOffset: Map<number, Die>): Variable | undefined {
  const location = /DW_OP_addr: ([0-9a-f]+)\)$/.exec(die.attributes.get('DW_AT_location') ?? '');
  if (!location) return undefined;
  const name = attributeOf(die, 'DW_AT_name', byOffset);
  if (name === undefined) return undefined;
  const type = referenceOf(attributeOf(die, 'DW_AT_type', byOffset));
  return { name: nameOf(name), address: parseInt(location[1]!, 16), ...(type !== undefined ? { type } : {}) };
}

/**
 * A function with code and its locals at DW_OP_fbreg offsets from its frame base, when
 * that is the canonical frame address (GCC's choice); other frame bases (Clang's stack or
 * frame pointer) and locals without one place (in registers, in location lists) are not
 * named. High pc is an offset from low pc, as DWARF 4 and later write it.
 */
function frameFunctionOf(die: Die, byOffset: Map<number, Die>): FrameFunction | undefined {
  const low = numberOf(die.attributes.get('DW_AT_low_pc'));
  const length = numberOf(die.attributes.get('DW_AT_high_pc'));
  const name = attributeOf(die, 'DW_AT_name', byOffset);
  if (low === undefined || length === undefined || name === undefined) return undefined;
  const locals: FrameVariable[] = [];
  if (die.attributes.get('DW_AT_frame_base')?.endsWith('(DW_OP_call_frame_cfa)')) {
    const collect = (parent: Die) => {
      for (const child of parent.children) {
        const offset = /^[^(]*\(DW_OP_fbreg: (-?\d+)\)$/.exec(child.attributes.get('DW_AT_location') ?? '');
        const childName = attributeOf(child, 'DW_AT_name', byOffset);
        if (offset && childName !== undefined && (child.tag === 'DW_TAG_variable' || child.tag === 'DW_TAG_formal_parameter')) {
          const type = referenceOf(attributeOf(child, 'DW_AT_type', byOffset));
          locals.push({ name: nameOf(childName), frameOffset: Number(offset[1]), ...(type !== undefined ? { type } : {}) });
        }
        if (child.tag === 'DW_TAG_lexical_block' || child.tag === 'DW_TAG_inlined_subroutine') collect(child);
      }
    };
    collect(die);
  }
  return { name: nameOf(name), address: low, end: low + length, locals };
}

/** An attribute of the DIE or of the declaration or abstract instance it completes. */
function attributeOf(die: Die, attribute: string, byOffset: Map<number, Die>): string | undefined {
  const origin = byOffset.get(referenceOf(die.attributes.get('DW_AT_abstract_origin') ?? die.attributes.get('DW_AT_specification')) ?? -1);
  return die.attributes.get(attribute) ?? (origin && origin !== die ? attributeOf(origin, attribute, byOffset) : undefined);
}

/** "(indirect string, offset: 0x1a5): name", "(indirect string, offset: 0): name" (readelf writes offset 0 without 0x) or "name" */
export function nameOf(value: string): string {
  return value.replace(/^\((?:indirect (?:line )?string, )?offset: (?:0x[0-9a-f]+|\d+)\):\s*/, '');
}

function numberOf(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^(0x[0-9a-f]+|-?\d+)/.exec(value);
  return match ? Number(match[1]) : undefined;
}

function referenceOf(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /<0x([0-9a-f]+)>/.exec(value);
  return match ? parseInt(match[1]!, 16) : undefined;
}

/** DWARF 4/5 give a constant; older producers an expression ("(DW_OP_plus_uconst: 8)") */
function memberOffset(value: string | undefined): number {
  if (value === undefined) return 0;
  const expression = /DW_OP_plus_uconst: (\d+)/.exec(value);
  return expression ? Number(expression[1]) : numberOf(value) ?? 0;
}

/** Through typedefs and qualifiers to the type that says what the bytes are. */
export function resolve(info: DebugInfo, type: number | undefined): DwarfType | undefined {
  for (let hops = 0; type !== undefined && hops < 64; hops++) {
    const found = info.types.get(type);
    if (!found || (found.kind !== 'typedef' && found.kind !== 'qualified')) return found;
    type = found.target;
  }
  return undefined;
}

/** Bytes an object of the type occupies (0 when unknown). */
export function sizeOf(info: DebugInfo, type: number | undefined): number {
  const resolved = resolve(info, type);
  if (!resolved) return 0;
  if (resolved.kind === 'array') {
    const count = resolved.counts.reduce<number>((product, n) => product * (n ?? 0), 1);
    return count * sizeOf(info, resolved.element);
  }
  return resolved.kind === 'typedef' || resolved.kind === 'qualified' ? 0 : resolved.size;
}

/** The name of a typedef on the way to the type, if the type is one (pthread_mutex_t, …). */
export function typedefName(info: DebugInfo, type: number | undefined): string | undefined {
  for (let hops = 0; type !== undefined && hops < 64; hops++) {
    const found = info.types.get(type);
    if (!found) return undefined;
    if (found.kind === 'typedef') return found.name;
    if (found.kind !== 'qualified') return undefined;
    type = found.target;
  }
  return undefined;
}

/** What C calls the type: its typedef or struct, union or enum tag, or a base type's name. */
export function nameOfType(info: DebugInfo, type: number | undefined): string | undefined {
  const typedef = typedefName(info, type);
  if (typedef !== undefined) return typedef;
  const resolved = resolve(info, type);
  return resolved && 'name' in resolved ? resolved.name : undefined;
}
