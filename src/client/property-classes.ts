import { PROPERTY_ENUMERATIONS } from '../api/property-enumerations.js';
import { closest } from '../diagnostics/did-you-mean.js';
import { JsonFloat } from './json-body.js';

/*
 * What MITK's REST bridge accepts as a node property, so a value can be checked before it is
 * sent and sent in the form that keeps its class (Modules/Core mitkBaseProperty.cpp
 * `ConvertPropertyFromSelfContainedJson`; Modules/RESTAPI mitkDataStorageBridge.cpp).
 */

export const MAX_PROPERTY_KEY = 256;

/**
 * Why the workbench would refuse this property key, or undefined (Modules/RESTAPI/test
 * mitkInputValidationTest.cpp): empty, longer than 256 characters, control characters, or the
 * server's own `restapi.` prefix.
 */
export function propertyKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'a property key must not be empty';
  if (key.length > MAX_PROPERTY_KEY)
    return `a property key is at most ${MAX_PROPERTY_KEY} characters long (this one has ${key.length})`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'a property key must not contain control characters';
  if (key.startsWith('restapi.')) return '`restapi.` keys are the workbench’s own and cannot be written';
  return undefined;
}

/** The property classes MITK registers for writing (mitkCoreActivator.cpp `RegisterProperties`). */
export const SETTABLE_CLASSES = [
  'AnnotationProperty',
  'BoolLookupTableProperty',
  'BoolProperty',
  'ClippingProperty',
  'ColorProperty',
  'DoubleProperty',
  'DoubleVectorProperty',
  'FloatLookupTableProperty',
  'FloatProperty',
  'GroupTagProperty',
  'IntLookupTableProperty',
  'IntProperty',
  'IntVectorProperty',
  'LevelWindowProperty',
  'LookupTableProperty',
  'ModalityProperty',
  'PlaneOrientationProperty',
  'Point2dProperty',
  'Point3dProperty',
  'Point3iProperty',
  'Point4dProperty',
  'PointSetShapeProperty',
  'RenderingModeProperty',
  'StringLookupTableProperty',
  'StringProperty',
  'TemporoSpatialStringProperty',
  'TransferFunctionProperty',
  'UIntProperty',
  'UShortProperty',
  'Vector3DProperty',
  'VtkInterpolationProperty',
  'VtkRepresentationProperty',
  'VtkResliceInterpolationProperty',
  'VtkScalarModeProperty',
] as const;

/**
 * The class of the display properties MITK's mappers give a node (ImageVtkMapper2D,
 * VolumeMapperVtkSmart3D, the multi-label mapper, DataNode). Writing a value of another class
 * onto one of them is ignored by the workbench, so they are sent in their own class.
 */
export const KNOWN_PROPERTY_CLASSES: Readonly<Record<string, string>> = {
  name: 'StringProperty',
  visible: 'BoolProperty',
  opacity: 'FloatProperty',
  color: 'ColorProperty',
  layer: 'IntProperty',
  levelwindow: 'LevelWindowProperty',
  opaclevelwindow: 'LevelWindowProperty',
  LookupTable: 'LookupTableProperty',
  'Image Rendering.Mode': 'RenderingModeProperty',
  'Image Rendering.Transfer Function': 'TransferFunctionProperty',
  'Image.Displayed Component': 'IntProperty',
  'texture interpolation': 'BoolProperty',
  'reslice interpolation': 'VtkResliceInterpolationProperty',
  'in plane resample extent by geometry': 'BoolProperty',
  'bounding box': 'BoolProperty',
  depthOffset: 'FloatProperty',
  binary: 'BoolProperty',
  'outline binary': 'BoolProperty',
  'outline width': 'FloatProperty',
  'outline binary shadow': 'BoolProperty',
  'outline binary shadow color': 'ColorProperty',
  'outline shadow width': 'FloatProperty',
  'binaryimage.selectedcolor': 'ColorProperty',
  'binaryimage.hoveringcolor': 'ColorProperty',
  volumerendering: 'BoolProperty',
  'volumerendering.ambient': 'FloatProperty',
  'volumerendering.diffuse': 'FloatProperty',
  'volumerendering.specular': 'FloatProperty',
  'volumerendering.specular.power': 'FloatProperty',
  TransferFunction: 'TransferFunctionProperty',
  'labelset.contour.active': 'BoolProperty',
  'labelset.contour.width': 'FloatProperty',
};

export type Encoded = { ok: true; wire: unknown } | { ok: false; problem: string };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat);

const fail = (problem: string): Encoded => ({ ok: false, problem });

/** Every number inside as a float, so `1` stays a double on the server (JSON has no other way). */
export function floatsIn(value: unknown): unknown {
  if (typeof value === 'number') return new JsonFloat(value);
  if (Array.isArray(value)) return value.map(floatsIn);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, floatsIn(v)]));
  return value;
}

/**
 * A property value as the workbench must receive it to keep its class, or why it cannot be
 * sent. Bare values of a known key take that key's class (a float opacity `1` goes as `1.0`);
 * bare values of other keys take the class MITK infers (whole numbers an IntProperty, other
 * numbers a FloatProperty); `{type, value}` names the class itself. `key` is only used to
 * look the class up.
 */
export function encodePropertyValue(key: string, value: unknown): Encoded {
  const known = KNOWN_PROPERTY_CLASSES[key];
  if (isRecord(value) && 'type' in value) {
    const type = value.type;
    if (typeof type !== 'string' || !(SETTABLE_CLASSES as readonly string[]).includes(type)) {
      const near = typeof type === 'string' ? closest(type, SETTABLE_CLASSES) : undefined;
      return fail(
        `\`${String(type)}\` is not a property class the workbench can write${near ? ` (did you mean \`${near}\`?)` : ''}`,
      );
    }
    if (known !== undefined && known !== type)
      return fail(`\`${key}\` is a ${known} in MITK; the workbench would keep its old value when sent a ${type}`);
    return typed(type, value.value, 'value' in value);
  }
  if (known !== undefined) return bare(key, known, value);
  if (typeof value === 'boolean' || typeof value === 'string') return { ok: true, wire: value };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail('a property value must be a finite number');
    return { ok: true, wire: Number.isInteger(value) ? value : new JsonFloat(value) };
  }
  return fail(
    `a value of \`${key}\` is a boolean, a number, a string or {type: <MITK property class>, value: …}; MITK refuses ${Array.isArray(value) ? 'a bare list' : value === null ? 'null' : 'an object without `type`'}`,
  );
}

/** A bare value for a key whose class is known. */
function bare(key: string, type: string, value: unknown): Encoded {
  const enumNames = PROPERTY_ENUMERATIONS[type];
  if (enumNames !== undefined) return typed(type, value, true);
  switch (type) {
    case 'BoolProperty':
      return typeof value === 'boolean' ? { ok: true, wire: value } : fail(`\`${key}\` is true or false`);
    case 'StringProperty':
      return typeof value === 'string' ? { ok: true, wire: value } : fail(`\`${key}\` is a string`);
    case 'IntProperty':
      return Number.isInteger(value) ? { ok: true, wire: value } : fail(`\`${key}\` is a whole number`);
    case 'FloatProperty':
      return typeof value === 'number' && Number.isFinite(value)
        ? { ok: true, wire: new JsonFloat(value) }
        : fail(`\`${key}\` is a number`);
    case 'ColorProperty':
      return typed(type, value, true);
    default:
      return fail(
        `\`${key}\` is a ${type}: write it as {type: ${type}, value: …}${key === 'levelwindow' ? ', or use `level_window:`' : key === 'LookupTable' ? ', or use `colormap:`' : ''}`,
      );
  }
}

/** A typed envelope with its value checked where MITK's reader would fail, and its numbers as floats. */
function typed(type: string, value: unknown, hasValue: boolean): Encoded {
  if (!hasValue) return { ok: true, wire: { type } };
  const enumNames = PROPERTY_ENUMERATIONS[type];
  if (enumNames !== undefined) {
    if (typeof value === 'string' && enumNames.includes(value)) return { ok: true, wire: { type, value } };
    const near = typeof value === 'string' ? closest(value, enumNames) : undefined;
    return fail(
      `a ${type} is one of ${enumNames.join(', ')}${near ? ` (did you mean \`${near}\`?)` : ''}; got ${JSON.stringify(value)}`,
    );
  }
  switch (type) {
    case 'BoolProperty':
      return typeof value === 'boolean' ? { ok: true, wire: { type, value } } : fail('a BoolProperty is true or false');
    case 'StringProperty':
      return typeof value === 'string' ? { ok: true, wire: { type, value } } : fail('a StringProperty is a string');
    case 'IntProperty':
    case 'UIntProperty':
    case 'UShortProperty':
      return Number.isInteger(value) ? { ok: true, wire: { type, value } } : fail(`a ${type} is a whole number`);
    case 'FloatProperty':
    case 'DoubleProperty':
      return typeof value === 'number' && Number.isFinite(value)
        ? { ok: true, wire: { type, value: new JsonFloat(value) } }
        : fail(`a ${type} is a number`);
    case 'ColorProperty':
      return Array.isArray(value) && value.length === 3 && value.every((c) => typeof c === 'number' && c >= 0 && c <= 1)
        ? { ok: true, wire: { type, value: floatsIn(value) } }
        : fail('a colour is three numbers r, g, b from 0 to 1');
    case 'LookupTableProperty':
      // Counts stay whole numbers; ranges and table entries are floats.
      if (!isRecord(value))
        return fail('a LookupTableProperty value is an object (see MITK’s LookupTableProperty JSON)');
      return {
        ok: true,
        wire: {
          type,
          value: Object.fromEntries(
            Object.entries(value).map(([k, v]) => [
              k,
              ['NumberOfColors', 'Scale', 'Ramp'].includes(k) ? v : floatsIn(v),
            ]),
          ),
        },
      };
    case 'LevelWindowProperty':
      return isRecord(value)
        ? { ok: true, wire: { type, value: floatsIn(value) } }
        : fail(
            'a LevelWindowProperty value is an object (MITK’s CurrentRange, CurrentSettings, …); or use `level_window:`',
          );
    default:
      // MITK's readers take whole numbers where they read doubles: inside an envelope the class
      // is named, so the value goes as written.
      return { ok: true, wire: { type, value } };
  }
}
