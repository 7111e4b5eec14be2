import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { FloatLiteral } from '../../src/volume/json-literals.js';
import { readImageBytes } from '../../src/volume/read-image.js';
import { writeImageBytes } from '../../src/volume/write-image.js';
import { LABEL_DEFAULTS, type Label } from '../../src/volume/segmentation.js';
import { segmentationVolume, IDENTITY, type Volume } from '../../src/volume/volume.js';
import { assertReadError } from './fixtures.js';
import { segmentationNrrd, TWO_GROUPS_JSON, twoGroupValue } from './mitk-segmentation-bytes.js';

const ONE_GROUP_JSON =
  '[{"labels":[{"color":[0.2,0.4,0.6],"locked":true,"name":"Lesion","opacity":0.6,"value":5,"visible":false}],"name":"Main"}]';
const oneGroup = (i: number, j: number): number => ((i + j) % 3 === 0 ? 5 : 0);

function header(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, Math.min(bytes.length, 4000)));
  return text.slice(0, text.indexOf('\n\n'));
}

function groupValues(v: Volume, g: number): number[] {
  return [...v.segmentation!.groups[g]!.frames[0]!];
}

test('a 3-D segmentation of one group (raw) reads as a segmentation with its labels', () => {
  const v = readImageBytes(
    segmentationNrrd({ sizes: [4, 3, 2], groups: 1, groupsJson: ONE_GROUP_JSON, value: (_g, i, j) => oneGroup(i, j) }),
    'nrrd',
  );
  const seg = v.segmentation!;
  assert.equal(seg.groups.length, 1);
  assert.equal(seg.groups[0]!.name, 'Main');
  assert.deepEqual(seg.groups[0]!.labels, [
    { value: 5, name: 'Lesion', color: [0.2, 0.4, 0.6], opacity: 0.6, visible: false, locked: true, extra: {} },
  ]);
  assert.equal(v.componentType, 'uint16');
  assert.deepEqual(v.dims, [4, 3, 2]);
  const expected = Array.from({ length: 24 }, (_, n) => oneGroup(n % 4, Math.floor(n / 4) % 3));
  assert.deepEqual(groupValues(v, 0), expected);
  assert.deepEqual([...v.frames[0]!], expected, "the volume's own frames are the first group's");
});

test('a 4-D segmentation with the group axis first (gzip) splits into its groups; colours in all three spellings', () => {
  const v = readImageBytes(
    segmentationNrrd({
      sizes: [20, 20, 4],
      groups: 2,
      encoding: 'gzip',
      groupsJson: TWO_GROUPS_JSON,
      value: (g, i) => twoGroupValue(g, i),
    }),
    'nrrd',
  );
  const [anatomy, findings] = v.segmentation!.groups;
  assert.deepEqual(v.dims, [20, 20, 4]);
  assert.equal(anatomy!.name, 'Anatomy');
  assert.equal(findings!.name, 'Findings');
  assert.deepEqual(
    anatomy!.labels.map((l) => [l.value, l.name, l.color, l.opacity, l.visible, l.locked]),
    [
      [1, 'Liver', [1, 0, 0], 1, true, false],
      [2, 'Spleen', [0, 1, 0], 1, true, true],
    ],
    'fractions, and whole numbers read as 0..255',
  );
  assert.deepEqual(
    findings!.labels.map((l) => [l.value, l.name, l.color, l.opacity, l.visible, l.locked]),
    [[3, 'Tumor', [0, 0, 1], 0.5, true, true]],
    'the property form; missing settings take their defaults',
  );
  assert.deepEqual(anatomy!.extra, { custom_group_key: new FloatLiteral(1.5) }, 'unknown group keys are kept');
  assert.deepEqual(
    anatomy!.labels[1]!.extra,
    { 'anatomic_region.[0].meaning': 'Spleen', tracking_id: '7' },
    'unknown label keys are kept',
  );
  const row = (g: number): number[] => groupValues(v, g).slice(0, 20);
  assert.deepEqual(
    row(0),
    Array.from({ length: 20 }, (_, i) => twoGroupValue(0, i)),
  );
  assert.deepEqual(
    row(1),
    Array.from({ length: 20 }, (_, i) => twoGroupValue(1, i)),
  );
  assert.deepEqual(v.range, [0, 3]);
});

test('written as MITK writes it: unsigned short, the vector group axis first, sorted JSON keys, fractions kept; read back the same', () => {
  const source = readImageBytes(
    segmentationNrrd({
      sizes: [20, 20, 4],
      groups: 2,
      groupsJson: TWO_GROUPS_JSON,
      value: (g, i) => twoGroupValue(g, i),
    }),
    'nrrd',
  );
  const bytes = writeImageBytes(source, 'nrrd');
  const text = header(bytes);
  for (const line of [
    'type: unsigned short',
    'dimension: 4',
    'sizes: 2 20 20 4',
    'space directions: none (1,0,0) (0,1,0) (0,0,1)',
    'kinds: vector domain domain domain',
    'encoding: gzip',
    'modality:=org.mitk.multilabel.segmentation',
    'org.mitk.multilabel.segmentation.version:=1',
    'org.mitk.multilabel.segmentation.unlabeledlabellock:=0',
  ]) {
    assert.ok(text.split('\n').includes(line), `header has '${line}':\n${text}`);
  }
  const json = /^org\.mitk\.multilabel\.segmentation\.labelgroups:=(.*)$/m.exec(text)![1]!;
  assert.match(
    json,
    /^\[\{"custom_group_key":1\.5,"labels":\[\{"color":\[1\.0,0\.0,0\.0\],"locked":false,"name":"Liver","opacity":1\.0,"value":1,"visible":true\}/,
  );
  assert.match(
    json,
    /\{"anatomic_region\.\[0\]\.meaning":"Spleen","color":\[0\.0,1\.0,0\.0\],"locked":true,"name":"Spleen","opacity":1\.0,"tracking_id":"7","value":2,"visible":true\}/,
    'a 0..255 colour is written back as fractions',
  );
  assert.match(json, /"name":"Findings"\}\]$/);
  // The data: one value per group, interleaved, unsigned short little-endian.
  const data = gunzipSync(bytes.subarray(text.length + 2));
  assert.equal(data.length, 2 * 20 * 20 * 4 * 2);
  const view = new DataView(data.buffer, data.byteOffset);
  assert.deepEqual(
    [0, 1, 2, 3].map((n) => view.getUint16(n * 2, true)),
    [1, 0, 1, 0],
  );
  assert.deepEqual(
    [16, 17].map((n) => view.getUint16(n * 2, true)),
    [1, 3],
    'voxel 8: liver under the tumour',
  );

  const back = readImageBytes(bytes, 'nrrd');
  assert.deepEqual(
    back.segmentation!.groups.map((g) => ({ ...g, frames: g.frames.map((f) => [...f]) })),
    source.segmentation!.groups.map((g) => ({ ...g, frames: g.frames.map((f) => [...f]) })),
  );

  // One group keeps its group axis (size 1), as the Python client writes it: MITK reads that
  // as a one-group segmentation, while the client cannot read MITK's own 3-D form.
  const one = writeImageBytes(
    readImageBytes(
      segmentationNrrd({
        sizes: [4, 3, 2],
        groups: 1,
        groupsJson: ONE_GROUP_JSON,
        value: (_g, i, j) => oneGroup(i, j),
      }),
      'nrrd',
    ),
    'nrrd',
  );
  const oneText = header(one);
  assert.ok(
    oneText.includes('\ndimension: 4\n') &&
      oneText.includes('\nsizes: 1 4 3 2\n') &&
      oneText.includes('\nkinds: vector domain domain domain\n'),
    oneText,
  );
  assert.ok(oneText.includes('"color":[0.2,0.4,0.6]') && oneText.includes('"visible":false'));
  assert.deepEqual(
    groupValues(readImageBytes(one, 'nrrd'), 0),
    Array.from({ length: 24 }, (_, n) => oneGroup(n % 4, Math.floor(n / 4) % 3)),
  );
});

test('any integer type holds label values; a single layer without groups is an empty segmentation', () => {
  const small = readImageBytes(
    segmentationNrrd({
      sizes: [4, 3, 2],
      groups: 1,
      type: 'unsigned char',
      bytes: 1,
      groupsJson: ONE_GROUP_JSON,
      value: (_g, i, j) => oneGroup(i, j),
    }),
    'nrrd',
  );
  assert.equal(small.componentType, 'uint16', 'held as unsigned short, as MITK does');
  assert.equal(small.segmentation!.groups[0]!.labels[0]!.value, 5);
  const empty = readImageBytes(
    segmentationNrrd({ sizes: [4, 3, 2], groups: 1, groupsJson: '[]', value: () => 0 }),
    'nrrd',
  );
  assert.deepEqual(
    empty.segmentation!.groups.map((g) => [g.name, g.labels.length]),
    [['', 0]],
  );
});

test('bad segmentations are refused with what is wrong', () => {
  const base = { sizes: [4, 3, 2] as [number, number, number], groups: 1, groupsJson: ONE_GROUP_JSON, value: () => 5 };
  const refused = (
    over: Partial<typeof base> & { extraLines?: string[]; type?: string; bytes?: 1 | 2 | 4 },
    message: RegExp,
  ): void =>
    assertReadError(() => readImageBytes(segmentationNrrd({ ...base, ...over }), 'nrrd'), 'FILE_READ_ERROR', message);
  refused(
    { extraLines: ['org.mitk.multilabel.segmentation.version:=2'] },
    /format version 2 is newer than this workbench reads \(up to 1\)/,
  );
  refused({ groups: 2, value: () => 0 }, /2 group layer\(s\) but the header describes 1 label group/);
  refused(
    { type: 'unsigned int', bytes: 4, value: () => 70000 },
    /holds 70000, not a label value \(a whole number from 0 to 65535\)/,
  );
  refused({ groupsJson: '[]' }, /voxels carry label values but the header describes no labels/);
  refused(
    { groupsJson: '[{"labels":[{"value":1}]},{"labels":[{"value":1}]}]', groups: 2, value: () => 0 },
    /label value 1 is used twice/,
  );
  refused({ groupsJson: '[{"labels":[{"name":"no value"}]}]' }, /group 0, label 0 needs a 'value' from 1 to 65535/);
  refused({ groupsJson: '[{"labels":[{"value":5,"color":"red"}]}]' }, /'color' must be \[r, g, b\]/);
  refused({ groupsJson: '[{"labels":[{"value":5,"visible":"yes"}]}]' }, /'visible' must be true or false/);
  refused({ groupsJson: '[{"labels": [' }, /label-group JSON:/);
  refused({ groupsJson: '{"labels": []}' }, /expected an array of label groups/);
  const noGroups = new TextDecoder()
    .decode(segmentationNrrd(base))
    .replace(/^org\.mitk\.multilabel\.segmentation\.labelgroups:=.*\n/m, '');
  assertReadError(
    () => readImageBytes(new TextEncoder().encode(noGroups), 'nrrd'),
    'FILE_READ_ERROR',
    /no 'org\.mitk\.multilabel\.segmentation\.labelgroups' key/,
  );
});

test('a segmentation over time: groups and time steps survive writing and reading', () => {
  const frame = (t: number, g: number): Float32Array =>
    Float32Array.from({ length: 24 }, (_, i) => ((i + t + g) % 3 === 0 ? [1, 2][g]! : 0));
  const labels = (value: number): Label[] => [{ ...LABEL_DEFAULTS, value, name: `L${value}`, extra: {} }];
  const grid = {
    dims: [4, 3, 2] as [number, number, number],
    spacing: [1, 1, 2] as [number, number, number],
    origin: [0, 0, 0] as [number, number, number],
    direction: IDENTITY,
    timeStepMs: 500,
    timeOriginMs: 0,
  };
  const source = segmentationVolume(grid, {
    groups: [0, 1].map((g) => ({
      name: `G${g}`,
      labels: labels(g + 1),
      extra: {},
      frames: [0, 1].map((t) => frame(t, g)),
    })),
    unlabeledLock: true,
  });
  const bytes = writeImageBytes(source, 'nrrd');
  const text = header(bytes);
  assert.ok(
    text.includes('\ndimension: 5\n') &&
      text.includes('\nsizes: 2 4 3 2 2\n') &&
      text.includes('\nkinds: vector domain domain domain time\n'),
    text,
  );
  assert.ok(text.includes('\norg.mitk.multilabel.segmentation.unlabeledlabellock:=1'));
  const back = readImageBytes(bytes, 'nrrd');
  assert.equal(back.timeStepMs, 500);
  assert.equal(back.segmentation!.unlabeledLock, true);
  assert.deepEqual(
    back.segmentation!.groups.map((g) => g.frames.map((f) => [...f])),
    [0, 1].map((g) => [0, 1].map((t) => [...frame(t, g)])),
  );
});
