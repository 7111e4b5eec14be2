import { PROPERTY_ENUMERATIONS } from '../api/property-enumerations.js';
import type { PropertyValue } from './datastore-types.js';
import { FloatLiteral, plain, writeJson, type Json } from '../volume/json-literals.js';
import { levelWindowFromJson, levelWindowJson, newLevelWindow, type LevelWindowState } from './level-window-state.js';
import { grayscaleLookupTable, lookupTableFromJson, lookupTableJson, type LookupTableState } from './lookup-table.js';

/**
 * Wire form ↔ typed property, as MITK's self-contained property JSON does it: plain scalars
 * for bool, int, float and string (the literal decides int or float: a client sending `1` for
 * an opacity creates an IntProperty, just as on the real server), `{type, value}` for the rest.
 */

export type Decoded = { ok: true; value: PropertyValue } | { ok: false; error: string };

const fail = (error: string): Decoded => ({ ok: false, error });

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
  if (typeof wire.type !== 'string' || wire.type === '') {
    return fail('an object property value needs a "type" (the MITK property class) and a "value"');
  }
  return decodeTyped(wire.type, wire.value);
}

const ok = (value: PropertyValue): Decoded => ({ ok: true, value });

/**
 * A typed value as `ConvertPropertyFromSelfContainedJson` reads it: the class's own JSON; no
 * `value` gives the class's default-constructed property (a grey lookup table, MITK's 127.5 /
 * 255 level window, the first name of an enumeration).
 */
function decodeTyped(type: string, value: Json | undefined): Decoded {
  const enumNames = PROPERTY_ENUMERATIONS[type];
  if (enumNames !== undefined) {
    if (value === undefined) return ok({ type, value: enumNames[0]! });
    return typeof value === 'string' && enumNames.includes(value)
      ? ok({ type, value })
      : fail(`${type} is one of ${enumNames.join(', ')}`);
  }
  switch (type) {
    case 'BoolProperty':
      if (value === undefined) return ok({ type, value: false });
      return typeof value === 'boolean' ? ok({ type, value }) : fail('BoolProperty needs a boolean value');
    case 'IntProperty':
      if (value === undefined) return ok({ type, value: 0 });
      return typeof value === 'number' && Number.isSafeInteger(value)
        ? ok({ type, value })
        : fail('IntProperty needs an integer value');
    case 'UIntProperty':
    case 'UShortProperty': {
      const max = type === 'UIntProperty' ? 0xffffffff : 0xffff;
      if (value === undefined) return ok({ type, value: 0 });
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max
        ? ok({ type, value })
        : fail(`${type} needs a whole number from 0 to ${max}`);
    }
    case 'FloatProperty':
    case 'DoubleProperty': {
      if (value === undefined) return ok({ type, value: 0 });
      const n = numberOf(value);
      return n !== undefined && Number.isFinite(n) ? ok({ type, value: n }) : fail(`${type} needs a number value`);
    }
    case 'StringProperty':
      if (value === undefined) return ok({ type, value: '' });
      return typeof value === 'string' ? ok({ type, value }) : fail('StringProperty needs a string value');
    case 'ColorProperty': {
      if (value === undefined) return ok({ type, value: [0, 0, 0] });
      const rgb = Array.isArray(value) && value.length === 3 ? value.map(numberOf) : [];
      if (rgb.length !== 3 || rgb.some((c) => c === undefined))
        return fail('ColorProperty needs a value [r, g, b] of three numbers from 0 to 1');
      return ok({ type, value: rgb as [number, number, number] });
    }
    case 'LevelWindowProperty': {
      if (value === undefined) return ok({ type, value: newLevelWindow() });
      const lw = levelWindowFromJson(value);
      return lw.ok ? ok({ type, value: lw.value }) : fail(lw.error);
    }
    case 'LookupTableProperty': {
      if (value === undefined) return ok({ type, value: grayscaleLookupTable() });
      const lut = lookupTableFromJson(value);
      return lut.ok ? ok({ type, value: lut.value }) : fail(lut.error);
    }
    default:
      // Other MITK property classes are kept as sent and given back unchanged.
      if (value === undefined) return fail(`a ${type} needs a "value"`);
      return ok({ type, value: plain(value) });
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
    case 'DoubleProperty':
      return { type: p.type, value: float(p.value as number) };
    case 'ColorProperty':
      return { type: p.type, value: (p.value as number[]).map(float) };
    case 'LevelWindowProperty':
      return { type: p.type, value: levelWindowJson(p.value as LevelWindowState) };
    case 'LookupTableProperty':
      return { type: p.type, value: lookupTableJson(p.value as LookupTableState) };
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
