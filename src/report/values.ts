// A value read or written, as a C programmer wrote it: by the accessed object's type when
// the debug info has it (signed or unsigned, float or double, pointer in hex, bool, enum
// constant), else by the access's size as a signed decimal with its hex bits. Exact for
// all 64 bits; JSON gets numbers where they are exact, decimal strings beyond 2^53.
import { type DebugInfo, resolve, sizeOf } from './dwarf.js';

export interface ShownValue {
  /** as rendered: "-5", "-2.5", "0x7f0012345678", "GREEN", "true", "-1 (0xffffffff)" */
  text: string;
  /** for JSON: the value as a number when exact, else its decimal digits */
  json: number | string;
}

/** `bits` as recorded (`size` bytes of memory, 0 when the value is not memory: a thread id, a lock result). */
export function showValue(
  bits: bigint, size: number, type: number | undefined, info: DebugInfo | undefined, pointee?: (address: number) => string | undefined,
): ShownValue {
  if (size === 0 || size > 8) return integer(BigInt.asIntN(64, bits), size > 8 ? 8 : 0);
  const raw = BigInt.asUintN(8 * size, bits);
  const resolved = info ? resolve(info, type) : undefined;
  if (!resolved || !info || sizeOf(info, type) !== size) return integer(BigInt.asIntN(8 * size, raw), size);
  switch (resolved.kind) {
    case 'base':
      switch (resolved.encoding) {
        case 'signed':
          return integer(BigInt.asIntN(8 * size, raw));
        case 'unsigned':
          return integer(raw);
        case 'signed-char':
        case 'unsigned-char': {
          const value = resolved.encoding === 'signed-char' ? BigInt.asIntN(8, raw) : raw;
          const code = Number(raw);
          const shown = code >= 0x20 && code < 0x7f ? ` '${String.fromCharCode(code)}'` : '';
          return { text: `${value}${shown}`, json: Number(value) };
        }
        case 'bool':
          return raw <= 1n ? { text: raw === 1n ? 'true' : 'false', json: Number(raw) } : integer(raw);
        case 'float': {
          const view = new DataView(new ArrayBuffer(8));
          view.setBigUint64(0, raw);
          const value = size === 4 ? view.getFloat32(4) : size === 8 ? view.getFloat64(0) : Number.NaN;
          if (Number.isNaN(value) && size !== 4 && size !== 8) return integer(raw, size);
          return { text: String(value), json: Number.isFinite(value) ? value : String(value) };
        }
        default:
          return integer(BigInt.asIntN(8 * size, raw), size);
      }
    case 'pointer': {
      if (raw === 0n) return { text: 'NULL', json: 0 };
      const target = pointee?.(Number(raw));
      // the name when the pointer has one: a heap address differs from process to process (JSON keeps it)
      return { text: target ? `&${target}` : `0x${raw.toString(16)}`, json: exact(raw) };
    }
    case 'enum': {
      const value = resolved.signed ? BigInt.asIntN(8 * size, raw) : raw;
      const name = resolved.values.get(value);
      return { text: name ?? `${value}`, json: exact(value) };
    }
    default:
      return integer(BigInt.asIntN(8 * size, raw), size);
  }
}

/** A decimal; with `hexBytes`, its bits in hex as well when they say something more. */
function integer(value: bigint, hexBytes = 0): ShownValue {
  const hex = hexBytes > 0 && (value < 0n || value > 9n) ? ` (0x${BigInt.asUintN(8 * hexBytes, value).toString(16)})` : '';
  return { text: `${value}${hex}`, json: exact(value) };
}

function exact(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
}
