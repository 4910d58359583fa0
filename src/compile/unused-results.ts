// The calls to an atomic add or subtract whose returned value the harness drops, found in
// the linked library's code (`objdump -d`, AT&T syntax): along every path from the call,
// the result register (rax, in any width) is overwritten before anything reads it. The
// runtime makes those steps commute with each other (runtime/results.c, ops.h: ADD), so
// forty threads bumping one counter are one execution, not forty factorial. What this
// cannot follow counts as a use: a return (rax is the return value), an indirect or tail
// jump, an instruction it does not know. So a listed call's result really is unused; a use
// wrongly assumed only costs reduction.

/** The runtime's entry points for an add or subtract of 1, 2, 4 or 8 bytes. */
const ADDING_CALL = /^[0-9a-f]+ <__tsan_atomic(?:8|16|32|64)_fetch_(?:add|sub|or|and|xor)>$/;
const FUNCTION = /^([0-9a-f]+) <(.+)>:$/;
const INSTRUCTION = /^\s*([0-9a-f]+):\t([^\s]+)\s*([^#]*)/;
/** rax, eax, ax, al, ah */
const RESULT_REGISTER = /%(?:rax|eax|ax|al|ah)\b/;
const DIRECT_TARGET = /^([0-9a-f]+) </;

/** Writes its last operand whole and reads only the others. */
const OVERWRITING = new Set(['mov', 'movl', 'movq', 'movabs', 'movabsq', 'movzbl', 'movzwl', 'movsbl', 'movswl', 'movslq', 'movsbq', 'movswq', 'movzbq', 'movzwq', 'lea', 'leal', 'leaq', 'pop', 'popq']);
/** Read and write only their explicit operands (an AT&T size suffix b, w, l or q may follow). */
const EXPLICIT = new Set([
  'mov', 'movabs', 'movzb', 'movzw', 'movsb', 'movsw', 'movsl', 'lea', 'push', 'pop', 'add', 'sub', 'adc', 'sbb', 'and', 'or', 'xor', 'not', 'neg', 'inc', 'dec',
  'cmp', 'test', 'shl', 'shr', 'sal', 'sar', 'shld', 'shrd', 'rol', 'ror', 'rcl', 'rcr', 'bt', 'bts', 'btr', 'btc', 'bsf', 'bsr', 'tzcnt', 'lzcnt', 'popcnt', 'bswap',
  'nop', 'endbr64', 'leave', 'xchg', 'movss', 'movsd', 'movaps', 'movapd', 'movups', 'movupd', 'movdqa', 'movdqu', 'movd', 'pxor', 'xorps', 'xorpd', 'andps',
  'andpd', 'andnps', 'andnpd', 'orps', 'orpd', 'addss', 'addsd', 'subss', 'subsd', 'mulss', 'mulsd', 'divss', 'divsd', 'sqrtss', 'sqrtsd', 'maxss', 'maxsd',
  'minss', 'minsd', 'ucomiss', 'ucomisd', 'comiss', 'comisd', 'cvtsi2sd', 'cvtsi2ss', 'cvtsi2sdl', 'cvtsi2sdq', 'cvtsi2ssl', 'cvtsi2ssq', 'cvttsd2si',
  'cvttss2si', 'cvtss2sd', 'cvtsd2ss', 'unpcklps', 'unpcklpd', 'punpckldq', 'pshufd', 'shufps', 'movhps', 'movlps', 'movmskps', 'movmskpd',
]);
const CONDITION = /^(?:set|cmov)(?:n?(?:[abgl]e?|[cosz]|e|p[eo]?))$/;
const CONDITIONAL_JUMP = /^j(?:n?(?:[abgl]e?|[cosz]|e|p[eo]?))$/;

interface Instruction {
  address: number;
  mnemonic: string;
  operands: string;
}

/** What an instruction does with the result register on a path from the call. */
const Effect = { USES: 0, OVERWRITES: 1, IGNORES: 2, ENDS: 3 } as const;
type Effect = (typeof Effect)[keyof typeof Effect];

/** The return addresses (offsets in the library, ascending) of the adds and subtracts whose result nothing uses. */
export function unusedResultSites(disassembly: string): number[] {
  const sites: number[] = [];
  let code: Instruction[] = [];
  const finish = () => {
    let at: Map<number, number> | undefined;
    for (let i = 0; i + 1 < code.length; i++) {
      if (!code[i]!.mnemonic.startsWith('call') || !ADDING_CALL.test(code[i]!.operands.trim())) continue;
      at ??= new Map(code.map((instruction, index) => [instruction.address, index]));
      if (resultUnused(code, at, i + 1)) sites.push(code[i + 1]!.address);
    }
  };
  for (const line of disassembly.split('\n')) {
    if (FUNCTION.test(line)) {
      finish();
      code = [];
      continue;
    }
    const instruction = INSTRUCTION.exec(line);
    if (instruction) code.push({ address: Number.parseInt(instruction[1]!, 16), mnemonic: instruction[2]!, operands: instruction[3]!.trim() });
  }
  finish();
  return sites.sort((a, b) => a - b);
}

/** Whether no path from instruction `from` of a function (`at`: its instructions' indices by address) reads rax before overwriting it. */
function resultUnused(code: readonly Instruction[], at: ReadonlyMap<number, number>, from: number): boolean {
  const seen = new Set<number>();
  const pending = [from];
  while (pending.length > 0) {
    const index = pending.pop()!;
    if (seen.has(index)) continue;
    seen.add(index);
    const instruction = code[index];
    if (instruction === undefined) return false;
    const { mnemonic, operands } = instruction;
    const target = DIRECT_TARGET.exec(operands);
    if (mnemonic === 'jmp') {
      const next = target ? at.get(Number.parseInt(target[1]!, 16)) : undefined;
      if (next === undefined) return false; // indirect, or a tail call
      pending.push(next);
      continue;
    }
    if (CONDITIONAL_JUMP.test(mnemonic)) {
      const next = target ? at.get(Number.parseInt(target[1]!, 16)) : undefined;
      if (next === undefined) return false;
      pending.push(next, index + 1);
      continue;
    }
    const effect = effectOf(mnemonic, operands);
    if (effect === Effect.USES) return false;
    if (effect === Effect.IGNORES) pending.push(index + 1);
  }
  return true;
}

function effectOf(mnemonic: string, operands: string): Effect {
  const mentions = RESULT_REGISTER.test(operands);
  // a callee clobbers rax (only a variadic one reads al, which the caller sets right before)
  if (mnemonic === 'call' || mnemonic === 'callq') return mentions ? Effect.USES : Effect.OVERWRITES;
  if (mnemonic === 'ud2' || mnemonic === 'hlt') return Effect.ENDS;
  if (mentions) return overwrites(mnemonic, operands) ? Effect.OVERWRITES : Effect.USES;
  if (mnemonic === 'imul' || mnemonic === 'imull' || mnemonic === 'imulq') return operands.includes(',') ? Effect.IGNORES : Effect.USES;
  const base = /[bwlq]$/.test(mnemonic) && !EXPLICIT.has(mnemonic) ? mnemonic.slice(0, -1) : mnemonic;
  return EXPLICIT.has(mnemonic) || EXPLICIT.has(base) || CONDITION.test(mnemonic) ? Effect.IGNORES : Effect.USES;
}

/** Whether the instruction sets all of rax from operands that do not hold it. */
function overwrites(mnemonic: string, operands: string): boolean {
  const parts = splitOperands(operands);
  const last = parts[parts.length - 1];
  if (last !== '%eax' && last !== '%rax') return false;
  // the zeroing idioms read nothing
  if (/^(?:xor|sub)[lq]?$/.test(mnemonic) && parts.length === 2 && parts[0] === last) return true;
  return OVERWRITING.has(mnemonic) && parts.slice(0, -1).every((part) => !RESULT_REGISTER.test(part));
}

/** Operands split at the commas outside parentheses: "0x8(%rax,%rbx,1),%ecx" is two. */
function splitOperands(operands: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < operands.length; i++) {
    const character = operands[i];
    if (character === '(') depth++;
    else if (character === ')') depth--;
    else if (character === ',' && depth === 0) {
      parts.push(operands.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(operands.slice(start).trim());
  return parts;
}
