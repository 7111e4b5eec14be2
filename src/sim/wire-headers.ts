/**
 * Header names as the real server sends them. The handler works with lower-case names (HTTP
 * names are case-insensitive), but clients exist that look a name up case-sensitively, so the
 * socket layer writes each one in the spelling MITK's server uses: its HTTP library keeps the
 * names the server code sets (`Content-Type`, `WWW-Authenticate`, ...) and adds its own in the
 * same canonical form.
 */
const SPELLINGS: Record<string, string> = {
  'www-authenticate': 'WWW-Authenticate',
  'x-mitk-transfer-mode': 'X-MITK-Transfer-Mode',
  'x-mitk-data-format': 'X-MITK-Data-Format',
};

/** `content-type` → `Content-Type`; the few names that are not plain title case are listed. */
export function wireHeaderName(name: string): string {
  const lower = name.toLowerCase();
  return SPELLINGS[lower] ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** The headers of one answer with their names spelled for the wire. */
export function wireHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[wireHeaderName(name)] = value;
  return out;
}
