// The wire types of src/api/ checked against the project's wire schema: a sample of each type,
// checked by the compiler (`satisfies`), must validate against the schema's definition of the
// same thing. A field renamed or retyped on one side only fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import type {
  Camera,
  CameraPatch,
  EditorDescriptor,
  EditorInfo,
  FileAccessConfig,
  NodeInfo,
  SelectedSlice,
  WindowSummary,
  MxnCellSummary,
} from '../../src/api/wire.js';

const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'schemas', 'workbench-api.json'), 'utf8'),
) as { definitions: Record<string, unknown> };
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(schema, 'wire');

function check(definition: string, sample: Record<string, unknown>): void {
  const validate = ajv.compile({ $ref: `wire#/definitions/${definition}` });
  assert.ok(validate(sample), `${definition}: ${JSON.stringify(validate.errors)}`);
  // A key the schema does not name is a renamed or invented field (the schema allows extras).
  const known = Object.keys((schema.definitions[definition] as { properties?: object }).properties ?? {});
  for (const key of Object.keys(sample)) assert.ok(known.includes(key), `${definition} has no field ${key}`);
}

/** Where the parsed type holds exactly the wire's keys, the schema must also refuse a missing one. */
function checkRequired(definition: string, sample: Record<string, unknown>): void {
  const validate = ajv.compile({ $ref: `wire#/definitions/${definition}` });
  for (const key of Object.keys(sample)) {
    const without = { ...sample };
    delete without[key];
    if (validate(without)) continue;
    return;
  }
  assert.fail(`${definition}: the schema requires none of ${Object.keys(sample).join(', ')}`);
}

test("each wire type matches the schema's definition of the same answer", () => {
  const node = {
    uid: 'node_1',
    name: 'CT',
    path: '/CT',
    parent_uid: null,
    data_type: 'Image',
    children_count: 0,
    timestamp: 7,
  } satisfies NodeInfo;
  check('Node', node);
  checkRequired('Node', node);
  check('FileAccessConfig', {
    mode: 'allowed-directories',
    restrictions_active: true,
    max_active_temp_dirs_per_ip: 5,
    allowed_paths: ['/data'],
  } satisfies FileAccessConfig);
  check('EditorListItem', {
    alias: 'stdmulti',
    plugin_id: 'org.mitk.editors.stdmultiwidget',
    active: true,
  } satisfies EditorDescriptor);
  check('EditorInfo', {
    alias: 'mxn',
    plugin_id: 'org.mitk.editors.mxnmultiwidget',
    active: false,
    windows: [],
  } satisfies EditorInfo);
  check('WindowInfo', {
    id: 'axial',
    kind: '2d',
    view_direction: 'axial',
    has_camera: true,
    has_selected_slice: true,
  } satisfies WindowSummary);
  const { display_name: name, ...cell } = {
    id: 'mxn__w',
    kind: '2d',
    view_direction: 'coronal',
    has_camera: true,
    has_selected_slice: true,
    display_name: 'A',
    links: { selection: 'group' },
    has_selected_position: true,
  } satisfies MxnCellSummary;
  // The parsed cell calls the wire's `name` display_name.
  check('MxNWindowInfo', { ...cell, name });
  const camera = {
    position: [0, 0, 900],
    focal_point: [0, 0, 0],
    view_up: [0, 1, 0],
    parallel_scale: 120,
    perspective_angle: null,
  } satisfies Camera;
  // The parsed camera holds the key a window does not send (perspective_angle of a 2D window) as null.
  check('CameraState', Object.fromEntries(Object.entries(camera).filter(([, v]) => v !== null)));
  check('CameraPatch', { standard_view: 'anterior', parallel_scale: 80 } satisfies CameraPatch);
  check('SliceState', {
    step: 3,
    position: [1, 2, 3],
    bounds: { steps: 16, min_position: [0, 0, 0], max_position: [10, 10, 10] },
  } satisfies SelectedSlice);
});
