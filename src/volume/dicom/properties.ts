import type { DataSet } from 'dicom-parser';
import { basename } from 'node:path';
import { raw, str } from './data-set.js';
import { TAG, type SliceHeader } from './slice-header.js';

/** A property in the self-contained JSON MITK's REST API speaks: bare scalars or `{type, value}`. */
export type DicomProperty = string | number | boolean | { type: string; value: unknown };

/** `GetDefaultDICOMTagsOfInterest` (top-level tags; sequence paths are not read). */
const TAGS_OF_INTEREST = (
  '0008,0018 0008,0020 0008,0021 0008,0022 0008,002a 0008,0030 0008,0031 0008,0032 0008,0050 0008,0060 0008,0070 ' +
  '0008,0080 0008,0090 0008,0100 0008,0102 0008,0104 0008,1010 0008,1030 0008,103e 0008,1048 0008,1050 0008,1060 ' +
  '0008,1070 0008,1090 0008,1150 0008,2112 0010,0010 0010,0020 0010,0030 0010,0032 0010,0040 0010,1000 0010,1001 ' +
  '0010,1020 0010,1030 0010,2160 0010,4000 0012,0010 0012,0020 0012,0021 0012,0030 0012,0031 0012,0040 0012,0042 ' +
  '0012,0050 0012,0060 0012,0062 0012,0063 0012,0071 0018,0015 0018,0020 0018,0021 0018,002a 0018,0031 0018,0050 ' +
  '0018,0080 0018,0081 0018,0087 0018,0088 0018,1030 0018,1164 0018,1310 0018,5100 0020,000d 0020,000e 0020,0010 ' +
  '0020,0011 0020,0012 0020,0013 0020,0032 0020,0037 0020,0060 0020,1041 0028,0002 0028,0004 0028,0010 0028,0011 ' +
  '0028,0030 0028,0100 0028,0101 0028,0103 0028,0108 0028,0109 0028,1050 0028,1051 0028,1052 0028,1053 0028,1055 ' +
  '3004,000e 0062,0002 0062,0008'
).split(' ');

/**
 * The data properties MITK's DICOM reader sets on an image (`DICOMImageBlockDescriptor::
 * DescribeImageWithProperties`, `BaseDICOMReaderService`), in their wire form.
 */
export function blockProperties(
  timeSteps: readonly (readonly SliceHeader[])[],
  reader: {
    configuration: string;
    spacingSource: string;
    splitReasons: Array<[string, string?]>;
    /** Whether a regular gantry tilt was sheared away (`GantryTiltInformation::IsRegularGantryTilt`). */
    tiltCorrected: boolean;
  },
): Record<string, DicomProperty> {
  const first = timeSteps[0]![0]!;
  const props: Record<string, DicomProperty> = tagProperties(timeSteps);
  props['MITK.IO.reader.DICOM.files'] = temporoSpatial(timeSteps, (h) => h.file)!;
  props['MITK.IO.reader.DICOM.configuration'] = reader.configuration;
  props['MITK.IO.reader.DICOM.PixelSpacingInterpretation'] = spacingInterpretation(reader.spacingSource);
  props['MITK.IO.reader.DICOM.ReaderImplementationLevel'] = 'IMPLEMENTED';
  props['MITK.IO.reader.DICOM.GantyTiltCorrected'] = reader.tiltCorrected;
  props['MITK.IO.reader.DICOM.3D+t'] = timeSteps.length > 1;
  if (reader.splitReasons.length > 0)
    props['MITK.IO.reader.VolumeSplitReason'] = JSON.stringify(
      reader.splitReasons.map((r) => (r[1] === undefined ? [r[0]] : r)),
    );
  Object.assign(props, legacy(first, timeSteps, reader.tiltCorrected));
  const lw = levelWindow(first.ds);
  if (lw !== undefined) props.levelwindow = lw;
  props.name = nodeName(first.ds) ?? basename(first.file).replace(/\.[^.]*$/, '');
  return props;
}

/** The tags of interest found in any frame, as `DICOM.GGGG.EEEE` TemporoSpatialStringProperty values. */
export function tagProperties(timeSteps: readonly (readonly SliceHeader[])[]): Record<string, DicomProperty> {
  const props: Record<string, DicomProperty> = {};
  for (const key of TAGS_OF_INTEREST) {
    const [g, e] = key.split(',') as [string, string];
    const tag = `x${g}${e}`.toLowerCase();
    const value = temporoSpatial(timeSteps, (h) => (h.ds.elements[tag]?.items ? undefined : raw(h.ds, tag)));
    if (value !== undefined) props[`DICOM.${g.toUpperCase()}.${e.toUpperCase()}`] = value;
  }
  return props;
}

/** `GenerateNameFromDICOMProperties`: "Study / Series", either alone, or none. */
export function nodeName(ds: DataSet): string | undefined {
  const study = str(ds, TAG.studyDescription);
  const series = str(ds, TAG.seriesDescription);
  if (study !== undefined && series !== undefined) return `${study} / ${series}`;
  return study ?? series;
}

/** `LevelWindow(level, window)` from the first WindowCenter/WindowWidth values; range −2048..4096 widened to fit. */
export function levelWindow(ds: DataSet): DicomProperty | undefined {
  const level = firstNumber(raw(ds, TAG.windowCenter));
  const window = firstNumber(raw(ds, TAG.windowWidth));
  if (level === undefined || window === undefined) return undefined;
  const lower = level - window / 2;
  const upper = level + window / 2;
  const min = Math.min(-2048, lower);
  const max = Math.max(4096, upper);
  const settings = { Level: level, Window: window };
  return {
    type: 'LevelWindowProperty',
    value: {
      CurrentRange: { Max: max, Min: min },
      CurrentSettings: settings,
      DefaultSettings: settings,
      Fixed: false,
      IsFloatingImage: false,
    },
  };
}

function firstNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.split('\\')[0]!.trim());
  return text.trim() === '' || !Number.isFinite(n) ? undefined : n;
}

function spacingInterpretation(source: string): string {
  return source === 'PixelSpacing'
    ? 'SpacingInPatient'
    : source === 'ImagerPixelSpacing'
      ? 'SpacingAtDetector'
      : 'SpacingUnknown';
}

/** MITK's `TemporoSpatialStringProperty` JSON: equal neighbouring values condensed into z ranges. */
function temporoSpatial(
  timeSteps: readonly (readonly SliceHeader[])[],
  valueOf: (h: SliceHeader) => string | undefined,
): DicomProperty | undefined {
  const values: Array<Record<string, unknown>> = [];
  timeSteps.forEach((step, t) => {
    // Each slice's value once: decoding a tag's text is the cost here, some 90 tags × every file.
    const texts = step.map(valueOf);
    let start = 0;
    for (let z = 1; z <= step.length; z++) {
      const a = texts[start];
      if (z < step.length && texts[z] === a) continue;
      if (a !== undefined) values.push({ z: start, ...(z - 1 > start ? { zmax: z - 1 } : {}), t, value: a });
      start = z;
    }
  });
  return values.length === 0 ? undefined : { type: 'TemporoSpatialStringProperty', value: { values } };
}

/** The legacy `dicomseriesreader.*` and `dicom.*` string properties, from the first frame. */
function legacy(
  first: SliceHeader,
  timeSteps: readonly (readonly SliceHeader[])[],
  tiltCorrected: boolean,
): Record<string, DicomProperty> {
  const out: Record<string, DicomProperty> = {};
  const put = (key: string, value: string | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  put('modality', str(first.ds, TAG.modality));
  put('dicom.pixel.PhotometricInterpretation', first.photometric);
  put('dicom.study.StudyDescription', str(first.ds, TAG.studyDescription));
  put('dicom.series.SeriesDescription', str(first.ds, TAG.seriesDescription));
  put('dicom.pixel.Rows', String(first.rows));
  put('dicom.pixel.Columns', String(first.columns));
  put('dicomseriesreader.SOPClassUID', first.sopClassUid);
  out['dicomseriesreader.3D+t'] = timeSteps.length > 1;
  out['dicomseriesreader.GantyTiltCorrected'] = tiltCorrected;
  return out;
}
