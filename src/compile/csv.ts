/**
 * Reads a CSV manifest (RFC 4180: quoted fields, doubled quotes, CRLF or LF) into records by
 * header name. Study manifests are small and simple; a dependency would add nothing.
 */
export function parseCsv(text: string): { header: string[]; rows: Record<string, string>[]; line: number[] } {
  const records = splitRecords(text.replace(/^\uFEFF/, ''));
  const first = records.shift();
  if (!first) return { header: [], rows: [], line: [] };
  const header = first.fields.map((h) => h.trim());
  const rows: Record<string, string>[] = [];
  const line: number[] = [];
  for (const r of records) {
    if (r.fields.length === 1 && r.fields[0]?.trim() === '') continue;
    const row: Record<string, string> = {};
    header.forEach((h, i) => (row[h] = r.fields[i] ?? ''));
    rows.push(row);
    line.push(r.line);
  }
  return { header, rows, line };
}

function splitRecords(text: string): { fields: string[]; line: number }[] {
  const out: { fields: string[]; line: number }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      out.push({ fields, line: recordLine });
      fields = [];
      field = '';
      line++;
      recordLine = line;
    } else field += c;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    out.push({ fields, line: recordLine });
  }
  return out;
}
