/**
 * wbplay's DICOMweb client: QIDO-RS searches, WADO-RS retrieval of series into a local cache,
 * STOW-RS of results, against an archive such as Orthanc.
 */
export type * from './types.js';
export { Archive } from './archive.js';
export { SeriesCache, type Manifest } from './cache.js';
export { DicomwebError, type DicomwebErrorOptions } from './errors.js';
export { credentialsFromEnv, type CredentialNames } from './credentials.js';
export { archiveLabel, uidTag } from './labels.js';
export { attributesOf, type AttributesOptions, type DicomJson } from './attributes.js';
export type { StoreInstance } from './stow.js';
