/**
 * QIDO-RS searches (PS3.18 10.6), paged: an archive caps what one answer holds, so the search
 * asks page after page (limit/offset) until one comes back short. An archive that caps below
 * the limit asked for says so with a Warning header (PS3.18 8.3.4.4), which keeps the paging going.
 */
import { attributesOf, tagOf, type DicomJson } from './attributes.js';
import { DicomwebError } from './errors.js';
import type { Segment } from './labels.js';
import { readAll, type Answer, type Transport } from './transport.js';
import type { Attributes, QidoQuery, RetryRunner } from './types.js';

export const DEFAULT_PAGE_SIZE = 100;
/** A page of a hundred results is a few hundred kilobytes; this bounds a broken answer. */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;

export interface SearchContext {
  transport: Transport;
  retry: RetryRunner;
  pageSize: number;
}

interface Page {
  items: DicomJson[];
  /** The archive said more results exist than it sent. */
  more: boolean;
}

/** Every result of a search below `path` (`/studies`, `.../series`, `.../instances`). */
export async function search(
  context: SearchContext,
  path: Segment[],
  query: QidoQuery,
  includeFields: string[] = [],
): Promise<Attributes[]> {
  const { transport, retry, pageSize } = context;
  const base: [string, string][] = Object.entries(query);
  // Tags rather than keywords: every archive takes tags, not every one knows every keyword.
  for (const field of includeFields) base.push(['includefield', tagOf(field) ?? field]);
  const results: Attributes[] = [];
  let first: string | undefined;
  for (let offset = 0; ;) {
    const params: [string, string][] = [...base, ['limit', String(pageSize)], ['offset', String(offset)]];
    const page = await retry(() =>
      transport.send({
        method: 'GET',
        path,
        query: params,
        headers: { accept: 'application/dicom+json' },
        read: (answer) => readPage(answer, transport.label),
      }),
    );
    if (page.items.length === 0) break;
    const key = JSON.stringify(page.items[0]);
    if (offset === 0) first = key;
    else if (key === first)
      throw new DicomwebError(
        'ARCHIVE_BAD_RESPONSE',
        `the archive ${transport.label} ignores the offset of a search: it sent its first page again, so the results beyond ${offset} cannot be listed`,
        { retryable: false, hint: 'raise the page size above the number of results' },
      );
    for (const item of page.items) results.push(attributesOf(item));
    if (page.items.length < pageSize && !page.more) break;
    offset += page.items.length;
  }
  return results;
}

/** One page of an answer: 204 or an empty body is none; anything but an array of objects is refused. */
async function readPage(answer: Answer, label: string): Promise<Page> {
  const more = warnsOfMore(answer.headers.warning);
  if (answer.status === 204) return { items: [], more: false };
  const bytes = await readAll(answer.body, MAX_PAGE_BYTES, label);
  if (bytes.length === 0) return { items: [], more: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badJson(label, 'is not JSON');
  }
  if (!Array.isArray(parsed)) throw badJson(label, 'is not a JSON array');
  for (const item of parsed)
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw badJson(label, 'holds something other than DICOM JSON objects');
  return { items: parsed as DicomJson[], more };
}

function badJson(label: string, what: string): DicomwebError {
  return new DicomwebError('ARCHIVE_BAD_RESPONSE', `the search answer of the archive ${label} ${what}`, {
    retryable: false,
    hint: 'check that the URL is the DICOMweb root of the archive (its QIDO-RS service)',
  });
}

function warnsOfMore(value: string | string[] | undefined): boolean {
  const all = Array.isArray(value) ? value.join(', ') : (value ?? '');
  return /\b299\b/.test(all) && /additional results/i.test(all);
}
