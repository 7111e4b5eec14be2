/**
 * A file that could not be written, named by the path the user knows (never the temporary file
 * the write went through), with the operating system's reason and what to do about it.
 */
export class FileWriteError extends Error {
  readonly code = 'OUTPUT_NOT_WRITTEN';

  constructor(
    readonly path: string,
    /** The system's error code (`ENOSPC`, `EACCES`, ...); empty when the cause was not the system's. */
    readonly systemCode: string,
    reason: string,
    readonly hint: string = hintFor(systemCode),
  ) {
    super(`could not write ${path}: ${reason}`);
    this.name = 'FileWriteError';
  }

  /** The error of a failed write of `path`, whatever was thrown. */
  static of(path: string, error: unknown): FileWriteError {
    if (error instanceof FileWriteError) return error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
      return new FileWriteError(path, code, `${systemReason(error as Error)} (${code})`);
    return new FileWriteError(path, '', error instanceof Error ? error.message : String(error));
  }
}

/**
 * `no space left on device` out of Node's `ENOSPC: no space left on device, open '/x/.a.png.tmp'`:
 * the code and the temporary path are said elsewhere.
 */
function systemReason(error: Error): string {
  return error.message.replace(/^E[A-Z]+: /, '').replace(/, [a-z_]+(?: '.*')?$/s, '');
}

function hintFor(code: string): string {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'free some space (or give --out on a larger disk) and run again: studies whose files were lost run again, the others are up to date';
    case 'EACCES':
    case 'EPERM':
      return 'check that the folder is writable by this user';
    case 'EROFS':
      return 'the folder is on a read-only filesystem: give --out (or the path in the playbook) a writable place';
    case 'EISDIR':
      return 'a folder has the name the file should have: rename or remove it';
    case 'ENAMETOOLONG':
      return 'the path is too long for this system: shorten the folder names or the study names';
    case 'ENOTDIR':
      return 'a file has the name a folder of this path should have: rename or remove it';
    default:
      return 'check that the output folder is writable and the disk is not full';
  }
}
