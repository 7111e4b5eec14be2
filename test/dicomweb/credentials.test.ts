import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { inspect } from 'node:util';
import {
  Archive,
  archiveLabel,
  attributesOf,
  credentialsFromEnv,
  DicomwebError,
  uidTag,
} from '../../src/dicomweb/index.js';

test('credentials come from DICOMWEB_TOKEN, else DICOMWEB_USER and DICOMWEB_PASSWORD, or the names given', () => {
  assert.deepEqual(credentialsFromEnv({ DICOMWEB_TOKEN: 't', DICOMWEB_USER: 'u', DICOMWEB_PASSWORD: 'p' }), {
    kind: 'bearer',
    token: 't',
  });
  assert.deepEqual(credentialsFromEnv({ DICOMWEB_USER: 'u', DICOMWEB_PASSWORD: 'p' }), {
    kind: 'basic',
    user: 'u',
    password: 'p',
  });
  assert.equal(credentialsFromEnv({ DICOMWEB_USER: 'u' }), undefined, 'a user without a password is no login');
  assert.equal(credentialsFromEnv({ DICOMWEB_TOKEN: '' }), undefined);
  assert.deepEqual(credentialsFromEnv({ PACS_U: 'a', PACS_P: 'b' }, { user_env: 'PACS_U', password_env: 'PACS_P' }), {
    kind: 'basic',
    user: 'a',
    password: 'b',
  });
  assert.deepEqual(credentialsFromEnv({ PACS_T: 'x' }, { token_env: 'PACS_T' }), { kind: 'bearer', token: 'x' });
});

test('archiveLabel keeps scheme, host, port and path and drops user info, query and fragment', () => {
  assert.equal(archiveLabel('http://127.0.0.1:1234/dicom-web/'), 'http://127.0.0.1:1234/dicom-web');
  assert.equal(archiveLabel('https://user:secret@pacs.example:8443/dw?token=abc#x'), 'https://pacs.example:8443/dw');
  assert.equal(archiveLabel('https://pacs.example'), 'https://pacs.example');
  assert.equal(archiveLabel('not a url?token=abc'), 'not a url');
  const uid = '1.2.840.113619.2.55';
  assert.equal(uidTag(uid), `uid:${createHash('sha256').update(uid).digest('hex').slice(0, 8)}`);
  assert.notEqual(uidTag('1.2.3'), uidTag('1.2.4'));
});

test('credentials to a plain http:// host that is not loopback are refused before any connection', async () => {
  // The constructor refuses, synchronously: no request can have been made, no name resolved.
  const make = (url: string, allow = false): Archive =>
    new Archive({
      url,
      credentials: { kind: 'basic', user: 'u', password: 'hunter2' },
      allowInsecureCredentials: allow,
    });
  for (const url of ['http://example.invalid/dicom-web', 'http://10.0.0.5:8042/dicom-web', 'http://[2001:db8::1]/dw']) {
    let err: unknown;
    try {
      make(url);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof DicomwebError, url);
    assert.equal(err.code, 'CLEARTEXT_CREDENTIALS');
    assert.ok(err.message.includes(archiveLabel(url)), err.message);
    assert.ok(!inspect(err).includes('hunter2'));
  }
  // Allowed explicitly, over https://, to loopback, or without credentials: no refusal (and still no connection).
  await make('http://example.invalid/dicom-web', true).close();
  await make('https://example.invalid/dicom-web').close();
  for (const host of ['127.0.0.1', 'localhost', '[::1]']) await make(`http://${host}:1/dicom-web`).close();
  await new Archive({ url: 'http://example.invalid/dicom-web' }).close();
});

test('attributesOf reads keywords: PN as Alphabetic, IS and US as numbers, multi-values joined, no patient name', () => {
  const json = {
    '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Doe^Jane' }] },
    '00100030': { vr: 'DA', Value: ['19700101'] },
    '00100020': { vr: 'LO', Value: ['P1'] },
    '0020000D': { vr: 'UI', Value: ['1.2.3'] },
    '00200011': { vr: 'IS', Value: [3] },
    '00201209': { vr: 'IS', Value: ['32'] },
    '00280010': { vr: 'US', Value: [512] },
    '00080061': { vr: 'CS', Value: ['CT', 'SEG'] },
    '00080008': { vr: 'CS', Value: ['ORIGINAL', 'PRIMARY', 'AXIAL'] },
    '00180050': { vr: 'DS', Value: [2.5] },
    '00280030': { vr: 'DS', Value: [0.7, 0.7] },
    '00081030': { vr: 'LO' },
    '00081190': { vr: 'UR', Value: ['http://x/studies/1.2.3'] },
    '00089999': { vr: 'SQ', Value: [{}] },
  };
  assert.deepEqual(attributesOf(json), {
    PatientID: 'P1',
    StudyInstanceUID: '1.2.3',
    SeriesNumber: 3,
    NumberOfSeriesRelatedInstances: 32,
    Rows: 512,
    ModalitiesInStudy: 'CT\\SEG',
    ImageType: 'ORIGINAL\\PRIMARY\\AXIAL',
    SliceThickness: 2.5,
    PixelSpacing: '0.7\\0.7',
  });
  const withNames = attributesOf(json, { identifying: true });
  assert.equal(withNames.PatientName, 'Doe^Jane');
  assert.equal(withNames.PatientBirthDate, '19700101');
});
