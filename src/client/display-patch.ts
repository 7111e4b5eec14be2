import { WorkbenchUsageError } from './errors.js';
import { float, floats } from './json-body.js';
import type { PropertyValue } from './properties.js';

export interface DisplayProperties {
  name?: string;
  visible?: boolean;
  /** 0.0 to 1.0; always sent as a float. */
  opacity?: number;
  /** r, g, b in 0.0 to 1.0. */
  color?: [number, number, number];
  /** Stack order in every window (an integer; higher is drawn on top). */
  layer?: number;
  /** New parent UID, or null for top level. */
  parent?: string | null;
}

/**
 * Display properties as one PATCH body, checked first: floats stay floats on the wire, a colour
 * is a ColorProperty. Also the `properties` of a node made with them.
 */
export function displayPatch(props: Omit<DisplayProperties, 'parent'>): Record<string, PropertyValue> {
  const patch: Record<string, PropertyValue> = {};
  if (props.name !== undefined) {
    if (typeof props.name !== 'string' || props.name === '') throw invalid('name must be a non-empty string');
    patch.name = props.name;
  }
  if (props.visible !== undefined) {
    if (typeof props.visible !== 'boolean')
      throw invalid(`visible must be true or false, got ${String(props.visible)}`);
    patch.visible = props.visible;
  }
  if (props.opacity !== undefined) {
    if (typeof props.opacity !== 'number' || !(props.opacity >= 0 && props.opacity <= 1))
      throw invalid(`opacity must be a number from 0.0 to 1.0, got ${String(props.opacity)}`);
    patch.opacity = float(props.opacity);
  }
  if (props.color !== undefined) {
    const c = props.color as unknown;
    if (!Array.isArray(c) || c.length !== 3 || !c.every((x) => typeof x === 'number' && x >= 0 && x <= 1)) {
      throw invalid(`color must be three numbers r, g, b from 0.0 to 1.0, got ${JSON.stringify(c)}`);
    }
    patch.color = { type: 'ColorProperty', value: floats(c as number[]) };
  }
  if (props.layer !== undefined) {
    if (!Number.isInteger(props.layer)) throw invalid(`layer must be an integer, got ${String(props.layer)}`);
    patch.layer = props.layer;
  }
  return patch;
}

function invalid(message: string): WorkbenchUsageError {
  return new WorkbenchUsageError('INVALID_ARGUMENT', message);
}
