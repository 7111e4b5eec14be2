import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Everything that goes into the HTML report from a playbook, a study or a server passes
 * through here: text and attribute values are escaped, data for the page's script is JSON
 * that cannot end its `<script>` element, and file paths become URLs.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in text and in quoted attribute values alike, so there is one function to call. */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/**
 * JSON for a `<script type="application/json">` element. `<`, `>` and `&` are written as
 * `\u003c`-style escapes so no string inside (`</script>`, `<!--`) can close or confuse the
 * element, and U+2028/U+2029 so the text is also valid JavaScript.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The URL under which the report (in `outputDir`) finds an artefact. Artefacts are stored
 * relative to the output folder, so the report and its images can be moved together (a CI
 * artefact download); an absolute path outside it becomes a file URL.
 */
export function artefactUrl(path: string, outputDir?: string): string {
  let rel = path;
  if (isAbsolute(path)) {
    const inside = outputDir ? relative(outputDir, path) : undefined;
    if (inside === undefined || inside.startsWith('..') || isAbsolute(inside)) return pathToFileURL(path).href;
    rel = inside;
  }
  return rel
    .split(sep === '/' ? '/' : /[\\/]/)
    .map((segment) => (segment === '..' || segment === '.' ? segment : encodeURIComponent(segment)))
    .join('/');
}
