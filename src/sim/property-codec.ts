import type { PropertyValue } from './datastore-types.js';
import { FloatLiteral, plain, writeJson, type Json } from './json-literals.js';

/**
 * Wire form ↔ typed property, as MITK's self-contained property JSON does it: plain scalars
 * for bool, int, float and string (the literal decides int or float: a client sending `1` for
 * an opacity creates an IntProperty, just as on the real server), `{type, value}` for the rest.
 */

export type Decoded = { ok: true; value: PropertyValue } | { ok: false; error: string };

const fail = (error: string): Decoded => ({ ok: false, error });

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof FloatLiteral);

const numberOf = (v: Json | undefined): number | undefined =>
  typeof v === 'number' ? v : v instanceof FloatLiteral ? v.value : undefined;

export function decodeProperty(wire: Json): Decoded {
  if (typeof wire === 'boolean') return { ok: true, value: { type: 'BoolProperty', value: wire } };
  if (typeof wire === 'number') return { ok: true, value: { type: 'IntProperty', value: wire } };
  if (wire instanceof FloatLiteral) return { ok: true, value: { type: 'FloatProperty', value: wire.value } };
  if (typeof wire === 'string') return { ok: true, value: { type: 'StringProperty', value: wire } };
  if (wire === null)
    return fail('null is not a property value; send a boolean, number, string or {"type", "value"} object');
  if (Array.isArray(wire))
    return fail('an array is not a property value; wrap it as {"type": "<MITK property class>", "value": [...]}');
  if (typeof wire.type !== 'string' || wire.type === '' || !('value' in wire)) {
    return fail('an object property value needs a "type" (the MITK property class) and a "value"');
  }
  return decodeTyped(wire.type, wire.value as Json);
}

function decodeTyped(type: string, value: Json): Decoded {
  switch (type) {
    case 'BoolProperty':
      return typeof value === 'boolean'
        ? { ok: true, value: { type, value } }
        : fail('BoolProperty needs a boolean value');
    case 'IntProperty':
      return typeof value === 'number' && Number.isSafeInteger(value)
        ? { ok: true, value: { type, value } }
        : fail('IntProperty needs an integer value');
    case 'FloatProperty': {
      const n = numberOf(value);
      return n !== undefined ? { ok: true, value: { type, value: n } } : fail('FloatProperty needs a number value');
    }
    case 'StringProperty':
      return typeof value === 'string'
        ? { ok: true, value: { type, value } }
        : fail('StringProperty needs a string value');
    case 'ColorProperty': {
      const rgb = Array.isArray(value) && value.length === 3 ? value.map(numberOf) : [];
      if (rgb.length !== 3 || rgb.some((c) => c === undefined))
        return fail('ColorProperty needs a value [r, g, b] of three numbers from 0 to 1');
      return { ok: true, value: { type, value: rgb as [number, number, number] } };
    }
    case 'LevelWindowProperty': {
      const level = isObject(value) ? numberOf(value.level) : undefined;
      const window = isObject(value) ? numberOf(value.window) : undefined;
      if (level === undefined || window === undefined)
        return fail('LevelWindowProperty needs a value {"level": number, "window": number}');
      return { ok: true, value: { type, value: { level, window } } };
    }
    default:
      // Other MITK property classes are kept as sent and given back unchanged.
      return { ok: true, value: { type, value: plain(value) } };
  }
}

const float = (n: number): FloatLiteral => new FloatLiteral(n);

/** The wire form of a property: floats keep their fraction when written with `writeJson`. */
export function encodeProperty(p: PropertyValue): Json {
  switch (p.type) {
    case 'BoolProperty':
    case 'IntProperty':
    case 'StringProperty':
      return p.value as boolean | number | string;
    case 'FloatProperty':
      return float(p.value as number);
    case 'ColorProperty':
      return { type: p.type, value: (p.value as number[]).map(float) };
    case 'LevelWindowProperty': {
      const lw = p.value as { level: number; window: number };
      return { type: p.type, value: { level: float(lw.level), window: float(lw.window) } };
    }
    default:
      return { type: p.type, value: p.value as Json };
  }
}

/**
 * The text a property filter compares with: strings as they are, everything else as its
 * compact JSON (`true`, `0.5`, `{"type":"ColorProperty","value":[1.0,0.0,0.0]}`).
 */
export function filterText(p: PropertyValue): string {
  const wire = encodeProperty(p);
  return typeof wire === 'string' ? wire : writeJson(wire);
}
