import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Directories of file-reference downloads: one `mitk-rest-XXXXXX` per server, one
 * `data_XXXXXX` per download inside it. Each client IP keeps at most `maxPerIp` of them; the
 * oldest is removed when a new one would exceed that. Everything goes when the server stops.
 */
export class TempDirs {
  private root: string | undefined;
  private readonly byIp = new Map<string, string[]>();
  private closed = false;

  constructor(private readonly maxPerIp: number) {}

  /** A fresh directory for one download by `clientIp`, after evicting that IP's oldest if needed. */
  create(clientIp: string): string {
    // A request still running when the server stops must not leave a directory behind.
    if (this.closed) throw new Error('the server is stopping');
    this.root ??= mkdtempSync(join(tmpdir(), 'mitk-rest-'));
    const dirs = this.byIp.get(clientIp) ?? [];
    this.byIp.set(clientIp, dirs);
    while (dirs.length >= this.maxPerIp) rmSync(dirs.shift()!, { recursive: true, force: true });
    const dir = mkdtempSync(join(this.root, 'data_'));
    dirs.push(dir);
    return dir;
  }

  /** The live directories of one client IP, oldest first. */
  active(clientIp: string): readonly string[] {
    return this.byIp.get(clientIp) ?? [];
  }

  get rootDir(): string | undefined {
    return this.root;
  }

  removeAll(): void {
    this.closed = true;
    if (this.root !== undefined) rmSync(this.root, { recursive: true, force: true });
    this.root = undefined;
    this.byIp.clear();
  }
}
