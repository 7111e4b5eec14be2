import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { Problem } from './problem.js';

/**
 * Which server-side files a file-reference transfer may touch. With allowed directories, a
 * path must lie inside one of them after `..` is resolved and every symlink followed, so
 * neither `allowed/../etc/passwd` nor a symlink inside `allowed` pointing out gets through.
 */
export class FileAccess {
  private readonly roots: string[];

  constructor(readonly allowedDirs: readonly string[]) {
    // A root that does not exist (yet) is kept as written, so it still confines paths.
    this.roots = allowedDirs.map((dir) => real(resolve(dir)) ?? resolve(dir));
  }

  get restricted(): boolean {
    return this.roots.length > 0;
  }

  /** The `data` of GET /config/file-access. */
  describe(maxTempDirsPerIp: number): Record<string, unknown> {
    return this.restricted
      ? {
          allowed_paths: [...this.allowedDirs],
          max_active_temp_dirs_per_ip: maxTempDirsPerIp,
          mode: 'allowed-directories',
          restrictions_active: true,
        }
      : { max_active_temp_dirs_per_ip: maxTempDirsPerIp, mode: 'unrestricted', restrictions_active: false };
  }

  /**
   * The real path of a file a client asks the server to read: 403 FILE_ACCESS_DENIED outside
   * the allowed directories, 422 FILE_NOT_FOUND when there is no such file (or folder, when
   * `folders` admits one). Access is decided
   * first so that a refused client learns nothing about which files exist.
   */
  readable(filePath: string, folders = false): string {
    const absolute = resolve(filePath);
    const target = real(absolute);
    this.requireInside(target ?? absolute, filePath);
    if (target === undefined || !(isFile(target) || (folders && isFolder(target))))
      throw new Problem('FILE_NOT_FOUND', `File not found: ${filePath}`);
    return target;
  }

  private requireInside(path: string, asGiven: string): void {
    if (!this.restricted) return;
    const inside = this.roots.some((root) => {
      const rel = relative(root, path);
      return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
    });
    if (!inside) {
      throw new Problem(
        'FILE_ACCESS_DENIED',
        `Access to '${asGiven}' is denied: it is outside the allowed directories (see GET /api/v1/config/file-access)`,
      );
    }
  }
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A folder is read as MITK reads a DICOM folder: every series in it. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
