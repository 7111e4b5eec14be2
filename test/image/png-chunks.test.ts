import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32, tableCrc32 } from '../../src/image/png-chunks.js';

test("CRC-32 is the standard's, continues across pieces, and zlib's agrees with the table's", () => {
  const check = new TextEncoder().encode('123456789');
  for (const crc of [crc32, tableCrc32]) {
    assert.equal(crc(check), 0xcbf43926);
    assert.equal(crc(new Uint8Array(0)), 0);
    assert.equal(crc(check.subarray(4), crc(check.subarray(0, 4))), 0xcbf43926);
  }
  const bytes = Uint8Array.from({ length: 100_003 }, (_, i) => (Math.imul(i, 2654435761) >>> 13) & 255);
  assert.equal(crc32(bytes), tableCrc32(bytes));
});
