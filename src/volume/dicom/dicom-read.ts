import type { Segmentation } from '../segmentation.js';
import type { Volume } from '../volume.js';
import type { DicomProperty } from './properties.js';

/** What reading DICOM gives: one image or segmentation, with MITK's properties and its files. */
export interface DicomRead {
  kind: 'image' | 'segmentation';
  volume?: Volume;
  /** A DICOM SEG as one MITK multi-label segmentation (on `volume`'s grid). */
  segmentation?: Segmentation;
  /** Data properties as MITK sets them, in the wire form of MITK's property JSON. */
  properties: Record<string, DicomProperty>;
  /** The files of the block, in slice order (time step by time step). */
  files: string[];
  slices: number;
}
