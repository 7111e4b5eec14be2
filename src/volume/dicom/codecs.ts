import { createRequire } from 'node:module';
import type { SliceHeader } from './slice-header.js';
import { DEFLATED, EXPLICIT_BE, EXPLICIT_LE, IMPLICIT_LE } from './data-set.js';
import { DicomReadError, fail } from './errors.js';

/**
 * Compressed pixel data is decoded by dcmjs-codecs: DCMTK's IJG JPEG (8, 12 and 16 bit, so
 * JPEG Extended 12-bit decodes), CharLS, OpenJPEG and DCMTK's RLE decoder, built as one
 * WebAssembly module that ships in the package (nothing is downloaded at run time). Why this
 * package and not another is measured in docs/dicom.md ("How DICOM is read").
 */
type Codec = 'jpeg' | 'jpeg-ls' | 'jpeg2000' | 'rle';

const NATIVE = new Set([IMPLICIT_LE, EXPLICIT_LE, DEFLATED, EXPLICIT_BE]);

const ENCAPSULATED: Record<string, Codec> = {
  '1.2.840.10008.1.2.4.50': 'jpeg',
  '1.2.840.10008.1.2.4.51': 'jpeg',
  '1.2.840.10008.1.2.4.52': 'jpeg',
  '1.2.840.10008.1.2.4.53': 'jpeg',
  '1.2.840.10008.1.2.4.55': 'jpeg',
  '1.2.840.10008.1.2.4.57': 'jpeg',
  '1.2.840.10008.1.2.4.70': 'jpeg',
  '1.2.840.10008.1.2.4.80': 'jpeg-ls',
  '1.2.840.10008.1.2.4.81': 'jpeg-ls',
  '1.2.840.10008.1.2.4.90': 'jpeg2000',
  '1.2.840.10008.1.2.4.91': 'jpeg2000',
  '1.2.840.10008.1.2.4.92': 'jpeg2000',
  '1.2.840.10008.1.2.4.93': 'jpeg2000',
  '1.2.840.10008.1.2.5': 'rle',
};

/** Transfer syntaxes MITK's GDCM does not read, named so the error says what the file is. */
const KNOWN_UNSUPPORTED: Record<string, string> = {
  '1.2.840.10008.1.2.4.201': 'HTJ2K lossless',
  '1.2.840.10008.1.2.4.202': 'HTJ2K lossless RPCL',
  '1.2.840.10008.1.2.4.203': 'HTJ2K',
  '1.2.840.10008.1.2.4.110': 'JPEG XL lossless',
  '1.2.840.10008.1.2.4.111': 'JPEG XL JPEG recompression',
  '1.2.840.10008.1.2.4.112': 'JPEG XL',
};

/** Whether the pixel data is stored uncompressed; throws for a transfer syntax not read. */
export function isNative(h: SliceHeader): boolean {
  if (NATIVE.has(h.transferSyntax)) return true;
  if (ENCAPSULATED[h.transferSyntax] !== undefined) return false;
  const name = KNOWN_UNSUPPORTED[h.transferSyntax];
  fail(
    'UNSUPPORTED_TRANSFER_SYNTAX',
    h.file,
    `uses the transfer syntax ${h.transferSyntax}${name ? ` (${name})` : ''}, which MITK does not read`,
  );
}

interface NativeCodecsApi {
  initializeAsync(opts: { webAssemblyModulePathOrUrl: string; logCodecsInfo?: boolean }): Promise<void>;
  decodeRle(c: unknown): ContextApi;
  decodeJpeg(c: unknown, p?: { convertColorspaceToRgb?: boolean }): ContextApi;
  decodeJpegLs(c: unknown): ContextApi;
  decodeJpeg2000(c: unknown): ContextApi;
}
interface ContextApi {
  getDecodedBuffer(): Uint8Array | undefined;
}
interface CodecsModule {
  NativeCodecs: NativeCodecsApi;
  Context: new (attrs: Record<string, unknown>) => unknown;
  log: { setLevel(level: string): void };
}

let loaded: Promise<CodecsModule> | undefined;

/**
 * The codec module, loaded on first use: a folder of uncompressed files never pays for it. A
 * pool thread loads it ahead (`preloadCodecs`) while the headers of a compressed series are read.
 */
function codecs(): Promise<CodecsModule> {
  loaded ??= (async () => {
    const mod = (await import('dcmjs-codecs')) as unknown as { default?: CodecsModule } & CodecsModule;
    const api = mod.default ?? mod;
    api.log.setLevel('silent');
    const wasm = createRequire(import.meta.url).resolve('dcmjs-codecs/build/dcmjs-native-codecs.wasm');
    await api.NativeCodecs.initializeAsync({ webAssemblyModulePathOrUrl: wasm, logCodecsInfo: false });
    return api;
  })();
  return loaded;
}

/** Loads the codec module now; a failure is met again, and reported, by the first decode. */
export function preloadCodecs(): void {
  codecs().catch(() => {
    loaded = undefined;
  });
}

/**
 * Decodes one compressed frame to little-endian samples of BitsAllocated, interleaved colour
 * (YBR converted to RGB as GDCM does for MITK).
 */
export async function decodeFrame(h: SliceHeader, encoded: Uint8Array): Promise<Uint8Array> {
  const api = await codecs();
  const codec = ENCAPSULATED[h.transferSyntax]!;
  const context = new api.Context({
    width: h.columns,
    height: h.rows,
    bitsAllocated: h.bitsAllocated,
    bitsStored: h.bitsStored,
    samplesPerPixel: h.samples,
    pixelRepresentation: h.signed ? 1 : 0,
    planarConfiguration: h.planar,
    photometricInterpretation: h.photometric,
    encodedBuffer: encoded,
  });
  let decoded: Uint8Array | undefined;
  try {
    const out =
      codec === 'rle'
        ? api.NativeCodecs.decodeRle(context)
        : codec === 'jpeg-ls'
          ? api.NativeCodecs.decodeJpegLs(context)
          : codec === 'jpeg2000'
            ? api.NativeCodecs.decodeJpeg2000(context)
            : api.NativeCodecs.decodeJpeg(context, { convertColorspaceToRgb: true });
    decoded = out.getDecodedBuffer();
  } catch (err) {
    throw new DicomReadError(
      'CORRUPT',
      h.file,
      `its ${codec} pixel data cannot be decoded: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const needed = (h.rows * h.columns * h.samples * h.bitsAllocated) / 8;
  if (decoded === undefined || decoded.length < needed)
    fail('CORRUPT', h.file, `its ${codec} pixel data decodes to ${decoded?.length ?? 0} bytes, ${needed} expected`);
  return decoded;
}
