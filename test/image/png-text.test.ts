import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { listChunks, makeChunk } from '../../src/image/png-chunks.js';
import { addPngText, readPngText } from '../../src/image/png-text.js';
import { readProvenance, stampProvenance, type FigureProvenance } from '../../src/files/provenance.js';
import { card, png, pngjsPixels } from '../compare/images.js';

const bytes = png(card(20, 12));

test('text chunks round-trip, sit before the first IDAT, and leave the pixels as they were', () => {
  const stamped = addPngText(bytes, {
    'wbplay:step': '3: screenshot axial',
    'wbplay:playbook': 'C:\\data\\müller\\figure.yaml',
    'wbplay:note': 'Ω 日本',
  });
  assert.deepEqual(readPngText(stamped), {
    'wbplay:step': '3: screenshot axial',
    'wbplay:playbook': 'C:\\data\\müller\\figure.yaml',
    'wbplay:note': 'Ω 日本',
  });
  const types = listChunks(stamped).map((c) => c.type);
  assert.deepEqual(types.slice(0, 4), ['IHDR', 'tEXt', 'tEXt', 'iTXt']);
  assert.ok(types.indexOf('IDAT') > types.lastIndexOf('iTXt'));
  // pngjs checks every CRC and still reads the same pixels.
  assert.deepEqual(pngjsPixels(stamped).data, pngjsPixels(bytes).data);
  // The image data chunks are copied byte for byte.
  const idat = (b: Uint8Array) =>
    listChunks(b)
      .filter((c) => c.type === 'IDAT')
      .map((c) => Buffer.from(b.subarray(c.dataOffset, c.dataOffset + c.length)));
  assert.deepEqual(idat(stamped), idat(bytes));
});

test('stamping again replaces values instead of piling them up', () => {
  const once = addPngText(bytes, { a: '1', b: '2' });
  const twice = addPngText(once, { a: 'one' });
  assert.deepEqual(readPngText(twice), { a: 'one', b: '2' });
  assert.equal(listChunks(twice).filter((c) => c.type === 'tEXt').length, 2);
});

test('compressed text written by other tools is read, damaged chunks are skipped', () => {
  const chunks = listChunks(bytes);
  const ihdrEnd = chunks[0]!.offset + 12 + chunks[0]!.length;
  const z = makeChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), deflateSync('made elsewhere')]));
  const itxtZ = makeChunk(
    'iTXt',
    Buffer.concat([Buffer.from('Title\0\x01\0en\0Titel\0', 'latin1'), deflateSync(Buffer.from('Schädel', 'utf8'))]),
  );
  const damaged = makeChunk('tEXt', Buffer.from('Broken\0value', 'latin1'));
  damaged[damaged.length - 1]! ^= 1;
  const withExtra = Buffer.concat([bytes.subarray(0, ihdrEnd), z, itxtZ, damaged, bytes.subarray(ihdrEnd)]);
  assert.deepEqual(readPngText(withExtra), { Comment: 'made elsewhere', Title: 'Schädel' });
});

test('invalid keywords are refused', () => {
  for (const key of ['', ' lead', 'trail ', 'two  spaces', 'x'.repeat(80), 'tab\tkey']) {
    assert.throws(() => addPngText(bytes, { [key]: 'v' }), /cannot be a PNG text keyword/, JSON.stringify(key));
  }
});

test('figure provenance round-trips through the PNG', () => {
  const provenance: FigureProvenance = {
    playbook: 'playbooks/figure.yaml',
    playbookSha256: 'ab'.repeat(32),
    step: '4: screenshot mxn',
    workbench: 'embedded',
    engine_version: '2025.12',
    api_version: '1.2.0',
    inputs: { 'data/ct.nrrd': 'cd'.repeat(32) },
    version: '0.1.0',
  };
  const stamped = stampProvenance(bytes, provenance);
  assert.deepEqual(readProvenance(stamped), provenance);
  assert.equal(readPngText(stamped)['wbplay:playbook-sha256'], 'ab'.repeat(32));
  assert.equal(readProvenance(bytes), undefined);
  assert.deepEqual(pngjsPixels(stamped).data, pngjsPixels(bytes).data);
});
