import fc from 'fast-check';

/** Pieces of YAML and playbook syntax that a mutation may insert. */
const SNIPPETS = [
  ':',
  ': ',
  '-',
  '- ',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  ',',
  '#',
  '\n',
  '  ',
  '\t',
  '${',
  '}',
  '${out}',
  '${nope}',
  '${env.X}',
  '$${',
  '&a',
  '*a',
  '!',
  '|',
  '---',
  'load',
  'stdmulti/3d',
  'mxn/mxn__x',
  '1.5',
  '-3',
  'null',
  'true',
  '[1, 2]',
  '{ a: 1 }',
  'node:ct',
  'uid:',
  '\u00e9',
  '\r\n',
];

/** One edit of a text: a splice, two lines swapped, or a line repeated. */
export type Mutation = { at: number; del: number; insert: string } | { swap: [number, number] } | { dup: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    at: fc.nat(),
    del: fc.integer({ min: 0, max: 6 }),
    insert: fc.oneof(fc.constantFrom(...SNIPPETS), fc.string({ maxLength: 4 })),
  }),
  fc.record({ swap: fc.tuple(fc.nat(), fc.nat()) }),
  fc.record({ dup: fc.nat() }),
);

/** `text` with the mutation applied; positions wrap around, so every mutation applies. */
export function mutate(text: string, m: Mutation): string {
  if ('insert' in m) {
    const at = m.at % (text.length + 1);
    return text.slice(0, at) + m.insert + text.slice(at + m.del);
  }
  const lines = text.split('\n');
  if ('dup' in m) {
    const i = m.dup % lines.length;
    lines.splice(i, 0, lines[i] ?? '');
  } else {
    const i = m.swap[0] % lines.length;
    const j = m.swap[1] % lines.length;
    [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
  }
  return lines.join('\n');
}
