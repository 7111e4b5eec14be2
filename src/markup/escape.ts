const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for HTML and XML (SVG) alike: safe in element text and in quoted attribute values, so
 * every string from a playbook, a study or a server goes through this one function.
 */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}
