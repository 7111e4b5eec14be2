/**
 * A strict reader for the XML subset reports use (declaration, elements, attributes, text,
 * character and the five predefined entity references). It rejects what an XML 1.0 parser
 * rejects in that subset: characters XML cannot carry, a bare `<` or `&`, unbalanced or
 * mismatched tags, duplicate attributes, unquoted values, text outside the root.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*/;

export function parseXml(source: string): XmlElement {
  const bad = NOT_XML.exec(source);
  if (bad)
    throw new Error(`character U+${bad[0].charCodeAt(0).toString(16)} is not allowed in XML (offset ${bad.index})`);
  let pos = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${pos}: ${JSON.stringify(source.slice(pos, pos + 40))}`);
  };
  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('unterminated declaration');
    pos = end + 2;
  }
  const skipSpace = (): void => {
    while (pos < source.length && /\s/.test(source[pos] ?? '')) pos++;
  };
  const decode = (raw: string): string => {
    if (raw.includes('<')) fail('a bare < in text or an attribute');
    return raw.replace(/&([^;]*);?/g, (all, ref: string) => {
      if (!all.endsWith(';')) fail(`a bare & (${all})`);
      if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
      if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
      const ch = ENTITIES[ref];
      if (ch === undefined) fail(`unknown entity &${ref};`);
      return ch ?? '';
    });
  };
  const element = (): XmlElement => {
    if (source[pos] !== '<') fail('expected an element');
    pos++;
    const name = NAME.exec(source.slice(pos))?.[0] ?? fail('expected an element name');
    pos += name.length;
    const el: XmlElement = { name, attrs: {}, children: [], text: '' };
    for (;;) {
      const before = pos;
      skipSpace();
      if (source.startsWith('/>', pos)) {
        pos += 2;
        return el;
      }
      if (source[pos] === '>') {
        pos++;
        break;
      }
      if (pos === before) fail('expected whitespace before an attribute');
      const attr = NAME.exec(source.slice(pos))?.[0] ?? fail('expected an attribute name');
      pos += attr.length;
      if (source[pos] !== '=' || source[pos + 1] !== '"') fail(`attribute ${attr} must be ="quoted"`);
      const end = source.indexOf('"', pos + 2);
      if (end < 0) fail('unterminated attribute value');
      if (attr in el.attrs) fail(`duplicate attribute ${attr}`);
      el.attrs[attr] = decode(source.slice(pos + 2, end));
      pos = end + 1;
    }
    for (;;) {
      const next = source.indexOf('<', pos);
      if (next < 0) fail(`element ${name} is not closed`);
      el.text += decode(source.slice(pos, next));
      pos = next;
      if (source.startsWith('</', pos)) {
        pos += 2;
        if (!source.startsWith(name, pos)) fail(`expected </${name}>`);
        pos += name.length;
        skipSpace();
        if (source[pos] !== '>') fail(`expected > to close ${name}`);
        pos++;
        return el;
      }
      el.children.push(element());
    }
  };
  skipSpace();
  const root = element();
  skipSpace();
  if (pos !== source.length) fail('content after the root element');
  return root;
}
