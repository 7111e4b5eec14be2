/**
 * Writes a label volume as a DICOM Segmentation (SEG) object on the grid of a series written by
 * `dicomSeries`: one BINARY segment per label, with what MITK's reader (dcmqi) takes from it —
 * SegmentLabel for the label's name and RecommendedDisplayCIELabValue for its colour (dcmqi
 * turns the CIELab value into the RGB MITK divides by 255). dcmjs has a SEG derivation, but it
 * builds from source image data sets in memory (Cornerstone's shape); the data set here is built
 * from the volume's geometry directly and dcmjs encodes it and packs the bits.
 */
import type { Volume, Vec3 } from '../volume.js';
import { indexToWorld } from '../volume.js';
import type { Label } from '../segmentation.js';
import { dcmjs, ds, encodePart10, seededUid, type DataSet, type SeriesIdentity } from './write.js';

export const SEGMENTATION_STORAGE = '1.2.840.10008.5.1.4.1.1.66.4';

/** Data element tags as AT values (group << 16 | element). */
const REFERENCED_SEGMENT_NUMBER = 0x0062000b;
const SEGMENT_IDENTIFICATION_SEQUENCE = 0x0062000a;
const IMAGE_POSITION_PATIENT = 0x00200032;
const PLANE_POSITION_SEQUENCE = 0x00209113;

export interface DicomSegOptions {
  /** UIDs derive from it; by default the referenced series' UID. */
  seed?: string;
  seriesDescription?: string;
  seriesNumber?: number;
  /** The labels by value when the volume carries no segmentation; else its labels are used. */
  labels?: Pick<Label, 'value' | 'name' | 'color'>[];
}

interface Segment {
  number: number;
  label: Pick<Label, 'value' | 'name' | 'color'>;
  frame: Float32Array;
}

/**
 * One SEG file (part 10 bytes) for the volume's labels. `reference` is the series the
 * segmentation was drawn on: its patient, study and frame of reference are taken over and its
 * instances are referenced, so a viewer shows the two together.
 */
export function dicomSeg(volume: Volume, reference: SeriesIdentity, options: DicomSegOptions = {}): Uint8Array {
  const segments = segmentsOf(volume, options);
  if (segments.length === 0) throw new RangeError('a DICOM SEG needs at least one label');
  const [columns, rows, slices] = volume.dims;
  const perSlice = columns * rows;
  const seed = options.seed ?? reference.seriesInstanceUid;
  const d = volume.direction;
  const dimensionOrganizationUid = seededUid(seed, 'seg dimension organisation');
  const frames: { segment: Segment; k: number }[] = [];
  for (const segment of segments) {
    const present: number[] = [];
    for (let k = 0; k < slices; k++) {
      const plane = segment.frame.subarray(k * perSlice, (k + 1) * perSlice);
      if (plane.some((v) => v === segment.label.value)) present.push(k);
    }
    // Only slices the segment touches get a frame, as dcmqi writes them; a segment without
    // voxels still gets one (empty) frame, since a segment must have one.
    for (const k of present.length > 0 ? present : [0]) frames.push({ segment, k });
  }
  const bits = new Uint8Array(frames.length * perSlice);
  const perFrame = frames.map(({ segment, k }, f): DataSet => {
    const plane = segment.frame.subarray(k * perSlice, (k + 1) * perSlice);
    for (let i = 0; i < perSlice; i++) bits[f * perSlice + i] = plane[i] === segment.label.value ? 1 : 0;
    const position = indexToWorld(volume, 0, 0, k).map(ds) as Vec3;
    const source = reference.sopInstanceUids[k];
    return {
      FrameContentSequence: [{ DimensionIndexValues: [segment.number, k + 1] }],
      PlanePositionSequence: [{ ImagePositionPatient: position }],
      SegmentIdentificationSequence: [{ ReferencedSegmentNumber: segment.number }],
      ...(source ? { DerivationImageSequence: [derivation(reference.sopClassUid, source)] } : {}),
    };
  });
  const packed = dcmjs.data.BitArray.pack(bits);
  const dataset: DataSet = {
    SpecificCharacterSet: 'ISO_IR 100',
    ImageType: ['DERIVED', 'PRIMARY'],
    SOPClassUID: SEGMENTATION_STORAGE,
    SOPInstanceUID: seededUid(seed, 'seg instance'),
    StudyDate: '20240101',
    SeriesDate: '20240101',
    ContentDate: '20240101',
    StudyTime: '120000',
    ContentTime: '120000',
    AccessionNumber: '',
    Modality: 'SEG',
    Manufacturer: 'wbplay',
    ManufacturerModelName: 'wbplay',
    DeviceSerialNumber: '1',
    SoftwareVersions: '1',
    ReferringPhysicianName: '',
    StudyDescription: reference.studyDescription,
    SeriesDescription: options.seriesDescription ?? 'Segmentation',
    PatientName: reference.patientName,
    PatientID: reference.patientId,
    PatientBirthDate: '',
    PatientSex: 'O',
    StudyInstanceUID: reference.studyInstanceUid,
    SeriesInstanceUID: seededUid(seed, 'seg series'),
    StudyID: '1',
    SeriesNumber: options.seriesNumber ?? 100,
    InstanceNumber: 1,
    FrameOfReferenceUID: reference.frameOfReferenceUid,
    PositionReferenceIndicator: '',
    ReferencedSeriesSequence: [
      {
        SeriesInstanceUID: reference.seriesInstanceUid,
        ReferencedInstanceSequence: reference.sopInstanceUids.map((uid) => ({
          ReferencedSOPClassUID: reference.sopClassUid,
          ReferencedSOPInstanceUID: uid,
        })),
      },
    ],
    DimensionOrganizationSequence: [{ DimensionOrganizationUID: dimensionOrganizationUid }],
    DimensionOrganizationType: '3D',
    DimensionIndexSequence: [
      {
        DimensionOrganizationUID: dimensionOrganizationUid,
        DimensionIndexPointer: REFERENCED_SEGMENT_NUMBER,
        FunctionalGroupPointer: SEGMENT_IDENTIFICATION_SEQUENCE,
        DimensionDescriptionLabel: 'ReferencedSegmentNumber',
      },
      {
        DimensionOrganizationUID: dimensionOrganizationUid,
        DimensionIndexPointer: IMAGE_POSITION_PATIENT,
        FunctionalGroupPointer: PLANE_POSITION_SEQUENCE,
        DimensionDescriptionLabel: 'ImagePositionPatient',
      },
    ],
    SamplesPerPixel: 1,
    PhotometricInterpretation: 'MONOCHROME2',
    NumberOfFrames: perFrame.length,
    Rows: rows,
    Columns: columns,
    BitsAllocated: 1,
    BitsStored: 1,
    HighBit: 0,
    PixelRepresentation: 0,
    LossyImageCompression: '00',
    SegmentationType: 'BINARY',
    ContentLabel: 'SEGMENTATION',
    ContentDescription: options.seriesDescription ?? 'Segmentation',
    ContentCreatorName: 'wbplay',
    SegmentsOverlap: 'NO',
    SegmentSequence: segments.map((s) => ({
      SegmentNumber: s.number,
      SegmentLabel: s.label.name,
      SegmentAlgorithmType: 'MANUAL',
      SegmentedPropertyCategoryCodeSequence: [code('91723000', 'SCT', 'Anatomical Structure')],
      SegmentedPropertyTypeCodeSequence: [code('85756007', 'SCT', 'Tissue')],
      RecommendedDisplayCIELabValue: dcmjs.data.Colors.rgb2DICOMLAB(s.label.color).map((v) =>
        Math.max(0, Math.min(65535, Math.round(v))),
      ),
    })),
    SharedFunctionalGroupsSequence: [
      {
        PlaneOrientationSequence: [{ ImageOrientationPatient: [d[0], d[3], d[6], d[1], d[4], d[7]].map(ds) }],
        PixelMeasuresSequence: [
          {
            PixelSpacing: [ds(volume.spacing[1]), ds(volume.spacing[0])],
            SliceThickness: ds(volume.spacing[2]),
            SpacingBetweenSlices: ds(volume.spacing[2]),
          },
        ],
      },
    ],
    PerFrameFunctionalGroupsSequence: perFrame,
    PixelData: [packed.buffer],
    _vrMap: { PixelData: 'OB' },
  };
  return encodePart10(dataset);
}

function derivation(sopClassUid: string, sopInstanceUid: string): DataSet {
  return {
    SourceImageSequence: [
      {
        ReferencedSOPClassUID: sopClassUid,
        ReferencedSOPInstanceUID: sopInstanceUid,
        PurposeOfReferenceCodeSequence: [code('121322', 'DCM', 'Source image for image processing operation')],
      },
    ],
    DerivationCodeSequence: [code('113076', 'DCM', 'Segmentation')],
  };
}

function code(value: string, scheme: string, meaning: string): DataSet {
  return { CodeValue: value, CodingSchemeDesignator: scheme, CodeMeaning: meaning };
}

/** Segments in label-value order; each holds the frame of the group its label lives in. */
function segmentsOf(volume: Volume, options: DicomSegOptions): Segment[] {
  const pairs: { label: Pick<Label, 'value' | 'name' | 'color'>; frame: Float32Array }[] = [];
  if (volume.segmentation) {
    for (const group of volume.segmentation.groups) {
      const frame = group.frames[0];
      if (frame) for (const label of group.labels) pairs.push({ label, frame });
    }
  } else {
    const frame = volume.frames[0];
    if (frame) for (const label of options.labels ?? []) pairs.push({ label, frame });
  }
  pairs.sort((a, b) => a.label.value - b.label.value);
  return pairs.map((p, i) => ({ number: i + 1, label: p.label, frame: p.frame }));
}
