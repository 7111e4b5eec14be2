import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { readDicom, DicomReadError } from '../../src/volume/dicom/index.js';
import { dicomSeries, seededUid, writeDicomSeries } from '../../src/volume/dicom/write.js';
import {
  derivedUid,
  secondaryCapture,
  sourceStudyOf,
  type SecondaryCaptureOptions,
  type SourceStudy,
} from '../../src/volume/dicom/write-sc.js';
import { dciodvfyErrors, needsDciodvfy } from '../helpers/dciodvfy.js';
import { needs, PYTHON, run } from '../helpers/tools.js';
import { sampleVolume, withTempDir } from './fixtures.js';

/** An odd width (so the pixel data needs its pad byte) and an alpha that varies, which must not leak into the colours. */
function capture(width = 7, height = 5): { width: number; height: number; data: Uint8Array } {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = (i * 37) % 256;
    data[i * 4 + 1] = (i * 91 + 13) % 256;
    data[i * 4 + 2] = 255 - ((i * 53) % 256);
    data[i * 4 + 3] = (i * 17) % 256;
  }
  return { width, height, data };
}

function rgbOf(image: { data: Uint8Array }): number[] {
  return Array.from(image.data).filter((_, i) => i % 4 !== 3);
}

/** A CT series whose patient and study have every attribute filled, and its first file. */
async function sourceSeries(dir: string): Promise<string> {
  const [first] = await writeDicomSeries(sampleVolume({ dims: [4, 3, 2] }), join(dir, 'source'), {
    seed: 'sc source',
    patientId: 'PAT42',
    patientName: 'Doe^Jane',
    studyDescription: 'CT HEAD',
    tags: {
      PatientBirthDate: '19700101',
      PatientSex: 'F',
      AccessionNumber: 'ACC7',
      ReferringPhysicianName: 'House^Gregory',
      StudyID: '77',
      StudyDate: '20231224',
      StudyTime: '093000',
    },
  });
  return first!;
}

function options(study: SourceStudy, over: Partial<SecondaryCaptureOptions> = {}): SecondaryCaptureOptions {
  return {
    study,
    seriesInstanceUid: derivedUid(study.studyInstanceUid, 'playbook.yaml', 'captures'),
    sopInstanceUid: derivedUid(study.studyInstanceUid, 'playbook.yaml', 'captures', 'axial.png'),
    seriesNumber: 901,
    instanceNumber: 3,
    seriesDescription: 'wbplay captures',
    contentDate: '20240102',
    contentTime: '030405',
    description: 'axial.png',
    ...over,
  };
}

const PYDICOM_SC = `
import json, sys, pydicom
d = pydicom.dcmread(sys.argv[1])
print(json.dumps({
  "ts": str(d.file_meta.TransferSyntaxUID), "sop": str(d.SOPClassUID), "modality": d.Modality,
  "conversion": d.ConversionType, "photometric": d.PhotometricInterpretation, "planar": int(d.PlanarConfiguration),
  "samples": int(d.SamplesPerPixel), "bits": [int(d.BitsAllocated), int(d.BitsStored), int(d.HighBit)],
  "shape": list(d.pixel_array.shape), "pixels": d.pixel_array.flatten().tolist(),
  "patient": [str(d.PatientID), str(d.PatientName), str(d.PatientBirthDate), str(d.PatientSex)],
  "study": [str(d.StudyInstanceUID), str(d.StudyDate), str(d.StudyTime), str(d.StudyID), str(d.AccessionNumber),
            str(d.ReferringPhysicianName), str(d.StudyDescription)],
  "series": [str(d.SeriesInstanceUID), int(d.SeriesNumber), str(d.SeriesDescription), int(d.InstanceNumber)],
  "content": [str(d.ContentDate), str(d.ContentTime)], "derivation": str(d.DerivationDescription),
  "source": [[str(i.ReferencedSOPClassUID), str(i.ReferencedSOPInstanceUID)] for i in d.SourceImageSequence],
  "related": [str(i.SeriesInstanceUID) for i in d.RelatedSeriesSequence],
}))`;

test(
  'a secondary capture read back by pydicom: RGB pixels exactly the capture, patient and study of the source',
  { skip: needs('pydicom') },
  async () => {
    await withTempDir(async (dir) => {
      const source = await sourceSeries(dir);
      const study = await sourceStudyOf(source);
      const image = capture();
      const path = join(dir, 'sc.dcm');
      await writeFile(path, secondaryCapture(image, options(study)));
      const sc = JSON.parse(run(PYTHON, ['-c', PYDICOM_SC, path])) as Record<string, unknown>;
      assert.equal(sc.ts, '1.2.840.10008.1.2.1');
      assert.equal(sc.sop, '1.2.840.10008.5.1.4.1.1.7');
      assert.equal(sc.modality, 'OT');
      assert.equal(sc.conversion, 'WSD');
      assert.deepEqual([sc.photometric, sc.planar, sc.samples, sc.bits], ['RGB', 0, 3, [8, 8, 7]]);
      assert.deepEqual(sc.shape, [5, 7, 3]);
      assert.deepEqual(sc.pixels, rgbOf(image));
      assert.deepEqual(sc.patient, ['PAT42', 'Doe^Jane', '19700101', 'F']);
      assert.deepEqual(sc.study, [
        study.studyInstanceUid,
        '20231224',
        '093000',
        '77',
        'ACC7',
        'House^Gregory',
        'CT HEAD',
      ]);
      const o = options(study);
      assert.deepEqual(sc.series, [o.seriesInstanceUid, 901, 'wbplay captures', 3]);
      assert.deepEqual(sc.content, ['20240102', '030405']);
      assert.equal(sc.derivation, 'axial.png');
      assert.deepEqual(sc.source, [
        [study.referencedInstances![0]!.sopClassUid, study.referencedInstances![0]!.sopInstanceUid],
      ]);
      assert.deepEqual(sc.related, [study.seriesInstanceUid]);
    });
  },
);

test('the project reader reads a secondary capture back: its RGB, and the same patient and study', async () => {
  await withTempDir(async (dir) => {
    const source = await sourceSeries(dir);
    const study = await sourceStudyOf(source);
    assert.deepEqual(
      [study.patientId, study.patientName, study.patientBirthDate, study.patientSex, study.studyDate, study.studyId],
      ['PAT42', 'Doe^Jane', '19700101', 'F', '20231224', '77'],
    );
    const image = capture(6, 4);
    const path = join(dir, 'sc.dcm');
    await writeFile(path, secondaryCapture(image, options(study)));
    const [read] = await readDicom(path, { onlyFile: true });
    assert.equal(read?.kind, 'image');
    assert.deepEqual(read.volume?.dims, [6, 4, 1]);
    assert.deepEqual(Array.from(read.volume?.rgb?.[0] ?? []), rgbOf(image));
    const tag = (key: string): unknown =>
      (read.properties[key] as { value: { values: { value: string }[] } } | undefined)?.value.values[0]?.value;
    assert.equal(tag('DICOM.0010.0020'), 'PAT42');
    assert.equal(tag('DICOM.0010.0010'), 'Doe^Jane');
    assert.equal(tag('DICOM.0020.000D'), study.studyInstanceUid);
    // The capture is a source of its own: the same patient and study, a new series, itself referenced.
    const again = await sourceStudyOf(path);
    const { seriesInstanceUid, referencedInstances, frameOfReferenceUid, ...joined } = study;
    const { seriesInstanceUid: scSeries, referencedInstances: scInstances, ...scJoined } = again;
    assert.deepEqual(scJoined, joined);
    assert.ok(frameOfReferenceUid !== undefined && again.frameOfReferenceUid === undefined, 'an SC claims no frame');
    assert.notEqual(scSeries, seriesInstanceUid);
    assert.equal(scSeries, options(study).seriesInstanceUid);
    assert.deepEqual(scInstances, [
      { sopClassUid: '1.2.840.10008.5.1.4.1.1.7', sopInstanceUid: options(study).sopInstanceUid },
    ]);
    assert.notDeepEqual(referencedInstances, scInstances);
  });
});

test(
  'names beyond ASCII are declared UTF-8 and read back as written, by pydicom and the project reader',
  { skip: needs('pydicom') },
  async () => {
    await withTempDir(async (dir) => {
      const study = await sourceStudyOf(await sourceSeries(dir));
      const path = join(dir, 'sc.dcm');
      const named = { ...study, patientName: 'Müller^Jürgen', studyDescription: 'Schädel' };
      await writeFile(path, secondaryCapture(capture(), options(named)));
      const script =
        'import sys, pydicom\nd = pydicom.dcmread(sys.argv[1])\nprint(d.SpecificCharacterSet, str(d.PatientName), d.StudyDescription, sep="|")';
      assert.equal(run(PYTHON, ['-c', script, path]).trim(), 'ISO_IR 192|Müller^Jürgen|Schädel');
      const back = await sourceStudyOf(path);
      assert.deepEqual([back.patientName, back.studyDescription], ['Müller^Jürgen', 'Schädel']);
    });
  },
);

test(
  'GDCM decodes a secondary capture: gdcmconv --raw takes it and its pixel bytes are the RGB',
  { skip: needs('gdcmconv') },
  async () => {
    await withTempDir(async (dir) => {
      const study = await sourceStudyOf(await sourceSeries(dir));
      const image = capture();
      const path = join(dir, 'sc.dcm');
      await writeFile(path, secondaryCapture(image, options(study)));
      run('gdcmconv', ['--raw', path, join(dir, 'raw.dcm')]);
      run('gdcmraw', ['-i', join(dir, 'raw.dcm'), '-o', join(dir, 'pixels.bin')]);
      const pixels = Array.from(await readFile(join(dir, 'pixels.bin')));
      // 7x5x3 = 105 bytes, padded to an even length with one zero.
      assert.deepEqual(pixels, [...rgbOf(image), 0]);
    });
  },
);

test(
  'dciodvfy finds no error in a secondary capture, with or without source references',
  { skip: needsDciodvfy() },
  async () => {
    await withTempDir(async (dir) => {
      const study = await sourceStudyOf(await sourceSeries(dir));
      const bare: SourceStudy = {
        patientId: '',
        patientName: '',
        patientBirthDate: '',
        patientSex: '',
        studyInstanceUid: study.studyInstanceUid,
        studyDate: '',
        studyTime: '',
        studyId: '',
        accessionNumber: '',
        referringPhysicianName: '',
        studyDescription: '',
      };
      const { referencedInstances: _, ...seriesOnly } = study;
      for (const [name, s] of Object.entries({ full: study, seriesOnly, bare })) {
        const path = join(dir, `${name}.dcm`);
        await writeFile(path, secondaryCapture(capture(), options(s, name === 'bare' ? { description: '' } : {})));
        assert.deepEqual(dciodvfyErrors(path), [], name);
      }
    });
  },
);

test('the same options write the same bytes; other content, other bytes', () => {
  const study: SourceStudy = {
    patientId: 'P',
    patientName: 'A^B',
    patientBirthDate: '',
    patientSex: 'O',
    studyInstanceUid: '1.2.3',
    studyDate: '20240101',
    studyTime: '120000',
    studyId: '1',
    accessionNumber: '',
    referringPhysicianName: '',
    studyDescription: 'S',
    seriesInstanceUid: '1.2.3.4',
  };
  const a = secondaryCapture(capture(), options(study));
  assert.deepEqual(secondaryCapture(capture(), options(study)), a);
  assert.notDeepEqual(secondaryCapture(capture(), options(study, { contentTime: '030406' })), a);
  const changed = capture();
  changed.data[0] = changed.data[0]! ^ 1;
  assert.notDeepEqual(secondaryCapture(changed, options(study)), a);
  // Alpha is not stored: a capture differing only there gives the same object.
  const alpha = capture();
  alpha.data[3] = 255 - alpha.data[3]!;
  assert.deepEqual(secondaryCapture(alpha, options(study)), a);
  assert.throws(() => secondaryCapture({ width: 2, height: 2, data: new Uint8Array(15) }, options(study)), RangeError);
  assert.throws(() => secondaryCapture({ width: 0, height: 2, data: new Uint8Array(0) }, options(study)), RangeError);
});

test('derivedUid: stable, under 2.25, at most 64 characters, valid UID syntax, seededUid’s scheme', () => {
  const uid = derivedUid('1.2.840.113619.2.55', 'playbooks/figure.yaml', 'axial.png');
  assert.equal(uid, derivedUid('1.2.840.113619.2.55', 'playbooks/figure.yaml', 'axial.png'));
  // Pinned: a change of scheme would silently duplicate every object already stored in an archive.
  assert.equal(derivedUid('a', 'b'), '2.25.119227826172246415199572365930447286639');
  assert.equal(derivedUid('seed', 'role'), seededUid('seed', 'role'));
  assert.notEqual(derivedUid('ab', 'c'), derivedUid('a', 'bc'));
  assert.notEqual(derivedUid('a'), derivedUid('a', ''));
  for (let i = 0; i < 200; i++) {
    const u = derivedUid(`source ${i}`, 'out.png');
    assert.ok(u.length <= 64, u);
    assert.match(u, /^2\.25\.(0|[1-9][0-9]*)$/);
  }
});

test('sourceStudyOf a file without a StudyInstanceUID says so', async () => {
  await withTempDir(async (dir) => {
    const [file] = dicomSeries(sampleVolume({ dims: [2, 2, 1] }), { tags: { StudyInstanceUID: undefined } });
    const path = join(dir, 'no-study.dcm');
    await writeFile(path, file!.bytes);
    await assert.rejects(
      sourceStudyOf(path),
      (err: unknown) => err instanceof DicomReadError && /StudyInstanceUID/.test(err.message),
    );
  });
});
