// The public API of wbplay: a deliberate, short list.
export { VERSION } from './version.js';
export { compareImages } from './compare/compare-images.js';
export type { AreaResult, CompareOptions, Comparison, ComparisonKind, ImageInput, RegionResult } from './compare/compare-images.js';
export type { RegionOptions, Tolerance } from './compare/tolerance.js';
export type { Rect, RgbaImage, Size } from './compare/image.js';
export { checkGolden } from './compare/golden.js';
export type { GoldenCheck, GoldenOutcome, UpdateMode } from './compare/golden.js';
export { captureStable } from './compare/stable.js';
export type { StableCapture, StableOptions } from './compare/stable.js';
export { writeFileAtomic } from './compare/atomic-write.js';
export { decodePng } from './compare/png-decode.js';
export { addPngText, readPngText } from './compare/png-text.js';
export { readProvenance, stampProvenance } from './compare/provenance.js';
export type { FigureProvenance } from './compare/provenance.js';
export { CompareError } from './compare/compare-error.js';
export type { CompareErrorCode } from './compare/compare-error.js';
