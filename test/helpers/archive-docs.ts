// The documentation pages whose example playbooks need a DICOMweb archive: the docs test of the
// reference workbench leaves them out, and test/dicomweb/docs-orthanc.test.ts runs them against
// a real Orthanc, so no example goes untested.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { root } from './cohort.js';

export const ARCHIVE_PAGES = ['docs/dicomweb.md', 'docs/playbook.md'] as const;

/** The archive every example names (Orthanc's default port on this machine), replaced by the test's. */
export const EXAMPLE_ARCHIVE = /http:\/\/(127\.0\.0\.1|localhost):8042\/dicom-web/g;

/** Whether an example playbook searches, retrieves from or stores into an archive. */
export function needsArchive(text: string): boolean {
  return /^\s*-?\s*(dicomweb|store):/m.test(text);
}

/** The example playbooks of a page that need an archive, with their line. */
export async function archiveExamples(page: string): Promise<{ line: number; text: string }[]> {
  const text = await readFile(join(root, page), 'utf8');
  const out: { line: number; text: string }[] = [];
  for (const m of text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)) {
    const body = m[1]!;
    if (!/^version: 1$/m.test(body) || !/^steps:/m.test(body)) continue;
    if (!needsArchive(body)) continue;
    out.push({ line: text.slice(0, m.index).split('\n').length, text: body });
  }
  return out;
}

/** The shell commands of a page's ```shell blocks, which need an archive (and, some, root). */
export async function archiveCommands(page: string): Promise<string[]> {
  const text = await readFile(join(root, page), 'utf8');
  return [...text.matchAll(/^```shell\n([\s\S]*?)^```$/gm)].flatMap((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}
