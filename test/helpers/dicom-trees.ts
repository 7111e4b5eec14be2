// Folder trees of DICOM files for the scan and cohort tests: a multi-patient export the tests
// write themselves, and pydicom's `dicomdirtests` (real files from scanners, shipped by Debian's
// python3-pydicom) copied to a temporary folder.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SOP, writeDicom } from './dicom-headers.js';

export const PYDICOM_FILES = '/usr/lib/python3/dist-packages/pydicom/data/test_files';

/** A Python with pydicom, or undefined (then a test that needs it skips outside CI and fails in it). */
export function pythonWithPydicom(): string | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(python, ['-c', 'import pydicom'], { stdio: 'ignore' });
      return python;
    } catch {
      // try the next
    }
  }
  return undefined;
}

/** Copies pydicom's multi-patient tree into `dir`; false when pydicom's files are not installed. */
export function copyDicomdirTests(dir: string): boolean {
  const from = join(PYDICOM_FILES, 'dicomdirtests');
  if (!existsSync(from)) return false;
  cpSync(from, dir, { recursive: true });
  return true;
}

export const UID = {
  studyA: '1.2.826.0.1.3680043.10.1.1',
  ctArterial: '1.2.826.0.1.3680043.10.1.1.2',
  ctVenous: '1.2.826.0.1.3680043.10.1.1.3',
  studyB: '1.2.826.0.1.3680043.10.2.1',
  mrT1: '1.2.826.0.1.3680043.10.2.1.1',
  mrT2: '1.2.826.0.1.3680043.10.2.1.2',
} as const;

/** The patient ID and name of patient A: reports must not show them unless a playbook asks. */
export const PATIENT_A = { id: 'PATIENT-4711', name: 'Doe^Jane' } as const;

/**
 * Two patients. A: a CT study of an arterial series (three extension-less files) and a venous
 * one (two `.dcm`), beside a structured report and an RT plan (no pixel data) and files that are
 * not DICOM. B: an MR study whose two series share one folder, one file a bare data set without
 * preamble and one with a header longer than the scanner's first read.
 */
export function writeExport(root: string): void {
  const a = {
    PatientID: PATIENT_A.id,
    PatientName: PATIENT_A.name,
    PatientBirthDate: '19700101',
    StudyInstanceUID: UID.studyA,
    StudyDate: '20240105',
    StudyDescription: 'CT ABDOMEN',
    AccessionNumber: 'ACC-1',
    Modality: 'CT',
    BodyPartExamined: 'ABDOMEN',
    Rows: 4,
    Columns: 4,
  };
  for (const [i, name] of ['IM3', 'IM1', 'IM2'].entries())
    writeDicom(join(root, 'A', 'arterial', name), {
      attrs: {
        ...a,
        SeriesInstanceUID: UID.ctArterial,
        SeriesNumber: 2,
        SeriesDescription: 'ABD ARTERIAL',
        InstanceNumber: i + 1,
      },
    });
  for (const name of ['v1.dcm', 'v2.dcm'])
    writeDicom(join(root, 'A', 'venous', name), {
      attrs: { ...a, SeriesInstanceUID: UID.ctVenous, SeriesNumber: 3, SeriesDescription: 'ABD VENOUS' },
    });
  writeDicom(join(root, 'A', 'arterial', 'SR0001'), {
    attrs: { ...a, SOPClassUID: SOP.SR, Modality: 'SR', SeriesInstanceUID: `${UID.studyA}.90`, SeriesNumber: 90 },
    pixels: false,
  });
  writeDicom(join(root, 'A', 'plan.dcm'), {
    attrs: {
      ...a,
      SOPClassUID: SOP.RTPLAN,
      Modality: 'RTPLAN',
      SeriesInstanceUID: `${UID.studyA}.91`,
      SeriesNumber: 91,
    },
    pixels: false,
  });
  writeFileSync(join(root, 'A', 'arterial', 'notes.txt'), 'not an image\n');
  writeFileSync(join(root, 'A', 'fake.dcm'), 'DICM? no, a text file with a DICOM name\n');
  writeFileSync(join(root, 'A', 'empty'), '');
  writeFileSync(join(root, 'A', 'thumb.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
  const b = {
    PatientID: 'PATIENT-0815',
    StudyInstanceUID: UID.studyB,
    StudyDate: '20240212',
    StudyDescription: 'MR HEAD',
    Modality: 'MR',
    BodyPartExamined: 'HEAD',
    Rows: 2,
    Columns: 2,
  };
  writeDicom(join(root, 'B', 'MR', '0001'), {
    attrs: { ...b, SeriesInstanceUID: UID.mrT1, SeriesNumber: 1, SeriesDescription: 'T1 axial' },
  });
  writeDicom(join(root, 'B', 'MR', '0002'), {
    attrs: { ...b, SeriesInstanceUID: UID.mrT1, SeriesNumber: 1, SeriesDescription: 'T1 axial' },
    bare: true,
  });
  writeDicom(join(root, 'B', 'MR', '0003'), {
    // The series UID lies past the first 16 KiB: the scanner must read on.
    attrs: {
      ...b,
      StudyDescription: `MR HEAD ${'x'.repeat(20_000)}`,
      SeriesInstanceUID: UID.mrT2,
      SeriesNumber: 2,
      SeriesDescription: 'T2 axial',
    },
  });
  writeDicom(join(root, 'B', 'MR', '0004'), {
    attrs: { ...b, SeriesInstanceUID: UID.mrT2, SeriesNumber: 2, SeriesDescription: 'T2 axial' },
  });
  mkdirSync(join(root, '.trash'), { recursive: true });
  writeDicom(join(root, '.trash', 'old'), { attrs: { ...b, SeriesInstanceUID: '1.2.3.999', SeriesNumber: 9 } });
}
