import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compareImages } from '../compare/compare-images.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { hasPngSignature } from '../image/png-chunks.js';
import { decodePng } from '../image/png-decode.js';

/** The folder of the output folder that holds the live page's images. */
export const CAPTURES_DIR = 'ui-captures';

/** One image as the page knows it: a file of the store, and what its pixels are. */
export interface StoredImage {
  /** `ui-captures/<sha256 of the bytes>.<ext>`: relative to the output folder, as the page loads it. */
  file: string;
  /** SHA-256 of the decoded pixels and size (of the bytes for a JPEG): the same picture has the same one. */
  pixels: string;
  width?: number;
  height?: number;
}

const JPEG = [0xff, 0xd8, 0xff];

/**
 * The images the live page shows, kept in the output folder under the hash of their bytes: a
 * run that writes `axial.png` again does not change what the page shows of the run before,
 * so the two can be compared, and a golden is accepted from exactly the bytes on screen. Each
 * file is written once, atomically; `keepOnly` drops the ones no run on the page still shows.
 */
export class CaptureStore {
  private readonly known = new Map<string, StoredImage>();

  constructor(readonly outputDir: string) {}

  /** The absolute path of a stored image. */
  path(image: StoredImage): string {
    return join(this.outputDir, image.file);
  }

  /** Stores PNG or JPEG bytes; anything else (an SVG beside a figure) is not an image the page shows. */
  async put(bytes: Uint8Array): Promise<StoredImage | undefined> {
    const png = hasPngSignature(bytes);
    if (!png && !JPEG.every((b, i) => bytes[i] === b)) return undefined;
    const sha = createHash('sha256').update(bytes).digest('hex');
    const file = `${CAPTURES_DIR}/${sha}.${png ? 'png' : 'jpg'}`;
    const seen = this.known.get(file);
    if (seen) return seen;
    let image: StoredImage = { file, pixels: sha };
    if (png) {
      const decoded = await decodePng(bytes, 'capture').catch(() => undefined);
      if (decoded) {
        const pixels = createHash('sha256')
          .update(`${decoded.width}x${decoded.height}:`)
          .update(decoded.data)
          .digest('hex');
        image = { file, pixels, width: decoded.width, height: decoded.height };
      }
    }
    if (!(await stat(this.path(image)).catch(() => undefined))) await writeFileAtomic(this.path(image), bytes);
    this.known.set(file, image);
    return image;
  }

  /** Stores a file's bytes; undefined when it cannot be read or is not an image. */
  async putFile(path: string): Promise<StoredImage | undefined> {
    const bytes = await readFile(path).catch(() => undefined);
    return bytes ? this.put(bytes) : undefined;
  }

  /**
   * The differing pixels of two stored PNGs as a diff image (the report's: the earlier image
   * faded, changes in red), stored too; undefined when they cannot be compared.
   */
  async diff(after: StoredImage, before: StoredImage): Promise<StoredImage | undefined> {
    if (!after.file.endsWith('.png') || !before.file.endsWith('.png')) return undefined;
    const [a, b] = await Promise.all([readFile(this.path(after)), readFile(this.path(before))]);
    const comparison = await compareImages(a, b, { threshold: 0 }).catch(() => undefined);
    return comparison?.diff instanceof Uint8Array ? this.put(comparison.diff) : undefined;
  }

  /** Removes every stored image but these files (relative, as in `StoredImage.file`). */
  async keepOnly(files: ReadonlySet<string>): Promise<void> {
    const names = await readdir(join(this.outputDir, CAPTURES_DIR)).catch(() => [] as string[]);
    for (const name of names) {
      // A name with a dot first is a write in progress.
      if (name.startsWith('.')) continue;
      const file = `${CAPTURES_DIR}/${name}`;
      if (files.has(file)) continue;
      this.known.delete(file);
      await rm(join(this.outputDir, file), { force: true });
    }
  }
}
