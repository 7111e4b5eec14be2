// The reference workbench under malformed and hostile requests: every one gets a documented
// answer (a problem body with a documented code, or one of the HTTP layer's bare answers), none
// gets a 500 or a reset connection, and the server still answers its health check afterwards.
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { PROBLEMS, type ProblemCode } from '../../../src/sim/problem.js';
import { rawRequest, type RawOutcome, type RawPart } from '../../helpers/raw-http.js';
import { withTempDir, withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { writeImage } from './volumes.js';

const TOKEN = 'fuzz-token-5f3a';
/** Far above what any answer here needs on a loaded machine; a hung request fails the test. */
const ANSWER_WITHIN_MS = 10_000;
const MAX_PAYLOAD = 256 * 1024;
/** Answers the HTTP layer gives without a problem body: unknown route or method, payload and header limits. */
const BARE_STATUSES = new Set([404, 413, 431]);

interface Hostile {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  /** How the body is delimited: declared length, chunked, or not at all (bytes simply follow the headers). */
  framing: 'length' | 'chunked' | 'none';
}

function bytesOf(r: Hostile): Array<string | Uint8Array> {
  // Each request closes its connection, so a reset after the answer is seen too.
  const headers: Array<[string, string]> = r.headers.some(([k]) => k === 'Connection')
    ? r.headers.map(([k, v]) => [k, k === 'Connection' ? `${v}, close` : v])
    : [...r.headers, ['Connection', 'close']];
  const body = r.body ?? new Uint8Array(0);
  if (r.framing === 'length' && r.body !== undefined && !headers.some(([k]) => k.toLowerCase() === 'content-length'))
    headers.push(['Content-Length', String(body.length)]);
  if (r.framing === 'chunked' && r.body !== undefined) headers.push(['Transfer-Encoding', 'chunked']);
  const head = `${r.method} ${r.target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  if (r.body === undefined) return [Buffer.from(head, 'latin1')];
  if (r.framing === 'chunked')
    return [Buffer.from(head, 'latin1'), `${body.length.toString(16)}\r\n`, body, '\r\n0\r\n\r\n'];
  return [Buffer.from(head, 'latin1'), body];
}

const text = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const deep = (n: number, open: string, close: string, inner = ''): string => open.repeat(n) + inner + close.repeat(n);

/** Path segments meant to escape, confuse a decoder or overflow something. */
const ODD_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F..%2F..%2Fetc%2Fpasswd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '..\\..\\windows',
  '%00',
  '%',
  '%ZZ',
  '%C0%AF',
  '%FF%FE',
  '%E2%80%AE',
  '%F0%9F%92%A9',
  '\u00e9',
  'a'.repeat(4000),
  '',
  ';',
  '*',
  '%20',
  '+',
  '%2F',
  'CON',
  '~root',
  '${jndi:x}',
  '<script>',
  "'",
  '"',
  '__proto__',
  'constructor',
  'mxn__',
  'mxn__%00',
  'mxn__../../x',
  'a b',
];

const ODD_QUERIES = [
  'limit=99999999999999999999',
  'limit=-1',
  'limit=0',
  'limit=1e3',
  'limit=NaN',
  'offset=1e400',
  'offset=-5',
  'offset=9007199254740993',
  'width=100000&height=1',
  'width=1e9&height=1e9',
  'width=0.5&height=0.5',
  'width=-1&height=-1',
  'width=8193&height=8193',
  'width=8192&height=2',
  'width=12',
  'format=gif',
  'format=png%00',
  'format=',
  'recursive=maybe',
  'recursive=1',
  'property_scope=../../',
  'property_scope=all',
  'context=%00',
  'context=stdmulti.widget0',
  `names=${'a,'.repeat(2000)}`,
  `filter.name=${'*a'.repeat(60)}b`,
  'filter.name!=*',
  'filter.=x',
  'filter.__proto__=x',
  'sort=-',
  'sort=__proto__',
  'sort=-timestamp',
  'hierarchy=deep',
  '%=%',
  'a=%ZZ',
  'constructor=1',
  'content=false',
];

/** Bodies that are not JSON, or JSON that breaks a parser. */
const BROKEN_JSON = [
  '{',
  '{"a":',
  '{"a":1,}',
  '[1,2',
  'nul',
  'NaN',
  'Infinity',
  '{"a":NaN}',
  "{'a':1}",
  '{"a":1}garbage',
  '\u{feff}{"a":1}',
  '"\\ud800"',
  '{"a":"\\u00"}',
  '1e999999',
  '-1e309',
  '0x10',
  '--1',
  '{"":{"":{"":',
  deep(20_000, '[', ']'),
  deep(20_000, '{"a":', '}', '1'),
  deep(5_000, '[', ']', '{}'),
  deep(100_000, '[', ']'),
  `[${'1,'.repeat(50_000)}1]`,
  `"${'x'.repeat(150_000)}"`,
];

/** JSON values that parse but carry huge, tiny or out-of-range numbers where numbers are expected. */
const HUGE_NUMBERS = [
  '{"position":[1e309,0,0]}',
  '{"position":[1e308,1e308,-1e308]}',
  '{"position":[1,2]}',
  '{"step":100000000000000000000000}',
  '{"step":-1}',
  '{"step":1e2}',
  '{"timestep":99999999999999999999}',
  '{"timepoint_ms":1e308}',
  '{"timepoint_ms":-1e308}',
  '{"timepoint_ms":1e999}',
  '{"parallel_scale":1e-320}',
  '{"parallel_scale":1e309}',
  '{"perspective_angle":1e309}',
  '{"view_up":[0,0,0]}',
  '{"focal_point":[1e308,0,0],"position":[-1e308,0,0]}',
  '{"standard_view":"anterior","position":[1,2,3]}',
  '{"type":"all","extra":[[[[[[1]]]]]]}',
  '{"type":7}',
  '{"uids":[]}',
  `{"uids":${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `u${i}`))}}`,
  '{"opacity":1e309}',
  '{"opacity":{"type":"FloatProperty","value":1e999}}',
  '{"color":{"type":"ColorProperty","value":[1e309,0,0]}}',
  '{"layer":{"type":"IntProperty","value":1e20}}',
  '{"layer":123456789012345678901234567890}',
  `{"name":"${'n'.repeat(100_000)}"}`,
  '{"x":{"type":"Vector3DProperty","value":[1,2]}}',
  '{"x":{"type":"NoSuchProperty","value":1}}',
  '{"parent_uid":""}',
  '{"parent_uid":5}',
  '{"name":5}',
  '{"properties":[1,2]}',
  '{"version":"2.0","root":{"type":"split","orientation":"horizontal","children":[]}}',
  `{"version":"2.0","root":${deep(300, '{"type":"split","orientation":"vertical","children":[', ']}', '{"type":"window","id":"mxn__deep","view_direction":"axial","links":{"selection":"g"}}')}}`,
  `{"version":"2.0","root":${deep(20_000, '{"type":"split","orientation":"vertical","children":[', ']}', '{"type":"window","id":"mxn__deep","view_direction":"axial","links":{"selection":"g"}}')}}`,
  '{"version":"9.9","root":null}',
  '{"version":"2.0","root":{"type":"window","id":"mxn__a"}}',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/octet-stream',
  'application/jsonx',
  'APPLICATION/JSON',
  'image/png',
  `application/${'x'.repeat(3000)}`,
];

const UNKNOWN_METHODS = [
  'PROPFIND',
  'TRACE',
  'CONNECT',
  'FROB',
  'get',
  'MKCOL',
  'PURGE',
  'SEARCH',
  'QUERY',
  'LINK',
  'HEAD',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Headers that confuse framing, authentication or the transfer mode. */
const ODD_HEADERS: Array<Array<[string, string]>> = [
  [['Expect', '100-continue']],
  [['Transfer-Encoding', 'gzip']],
  [['Content-Length', '-1']],
  [['Content-Length', '1e3']],
  [
    ['Content-Length', '3'],
    ['Content-Length', '4'],
  ],
  [['Content-Length', '99999999999999999999']],
  [['X-MITK-Transfer-Mode', 'file-reference']],
  [['X-MITK-Transfer-Mode', 'shared-memory']],
  [['Accept', 'application/json']],
  [['Content-Disposition', 'attachment; filename="../../../etc/passwd.nrrd"']],
  [
    ['Content-Disposition', 'attachment; filename="x.nrrd"'],
    ['X-MITK-Data-Format', '../../nrrd'],
  ],
  [['X-MITK-Data-Format', 'nii.gz']],
  [['Authorization', `Bearer ${'x'.repeat(10_000)}`]],
  [['X-Huge', 'h'.repeat(20_000)]],
  [
    ['Connection', 'Upgrade'],
    ['Upgrade', 'websocket'],
  ],
  [['Authorization', `Bearer ${TOKEN}\u0000`]],
];

interface Targets {
  uid: string;
  cell: string;
  allowed: string;
  outside: string;
}

function routes(t: Targets): string[] {
  const node = `/api/v1/datastorage/nodes/${t.uid}`;
  const std = '/api/v1/rendering/editors/stdmulti';
  const mxn = '/api/v1/rendering/editors/mxn';
  return [
    '/api/v1/health',
    '/api/v1/info',
    '/api/v1/config/file-access',
    '/api/v1/datastorage/nodes',
    node,
    `${node}/children`,
    `${node}/data`,
    `${node}/properties`,
    `${node}/properties/name`,
    `${node}/properties/opacity`,
    '/api/v1/rendering/update',
    '/api/v1/rendering/reinit',
    '/api/v1/rendering/selected-position',
    '/api/v1/rendering/selected-time',
    '/api/v1/rendering/screenshot',
    '/api/v1/rendering/editors',
    std,
    `${std}/windows/axial`,
    `${std}/windows/axial/camera`,
    `${std}/windows/3d/camera`,
    `${std}/windows/axial/selected-slice`,
    `${std}/windows/axial/screenshot`,
    `${std}/screenshot`,
    `${mxn}/layout`,
    `${mxn}/windows`,
    `${mxn}/windows/${t.cell}/camera`,
    `${mxn}/windows/${t.cell}/selected-position`,
    `${mxn}/windows/${t.cell}/selected-slice`,
  ];
}

/** File references outside the allowed folder, through it and around it, and ones that are no files. */
function fileReferences(t: Targets): string[] {
  return [
    '/etc/passwd',
    '/etc/shadow',
    '/dev/zero',
    '/proc/self/environ',
    join(t.allowed, '..', 'outside', 'out.nrrd'),
    join(t.outside, 'out.nrrd'),
    join(t.allowed, 'link-out.nrrd'),
    join(t.allowed, 'escape.nhdr'),
    join(t.allowed, 'missing.nrrd'),
    t.allowed,
    'ct.nrrd',
    '../outside/out.nrrd',
    '',
    '\u0000',
    `${t.allowed}/ct.nrrd\u0000.png`,
    'C:\\Windows\\win.ini',
    '\\\\server\\share\\x.nrrd',
    'file:///etc/passwd',
    `/${'a'.repeat(5000)}.nrrd`,
    join(t.allowed, 'ct.nrrd'),
  ];
}

function hostileRequests(t: Targets): fc.Arbitrary<Hostile> {
  const paths = routes(t);
  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constant<Array<[string, string]>>([['Authorization', `Bearer ${TOKEN}`]]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Array<[string, string]>>(
        [],
        [['Authorization', 'Bearer wrong']],
        [['Authorization', 'Basic Zm9vOmJhcg==']],
        [['Authorization', 'Bearer ']],
      ),
    },
  );
  const withQuery = (path: string, q: string | null): string => (q === null ? path : `${path}?${q}`);
  const oddPath = fc
    .tuple(
      fc.constantFrom(...paths),
      fc.nat(),
      fc.constantFrom(...ODD_SEGMENTS),
      fc.constantFrom('replace', 'append', 'insert'),
    )
    .map(([path, at, odd, how]) => {
      const segs = path.split('/');
      const i = 1 + (at % (segs.length - 1));
      if (how === 'replace') segs[i] = odd;
      else if (how === 'insert') segs.splice(i, 0, odd);
      else segs.push(odd);
      return segs.join('/');
    });
  const wholePath = fc.constantFrom(
    '/api/v1/../../../etc/passwd',
    '/api/v1/datastorage/nodes/..%2F..%2Finfo',
    '/API/V1/INFO',
    '/api/v1//health',
    '/api/v1/health/',
    '*',
    'http://evil.example/api/v1/info',
    '/',
    '/api/v1',
    '/api/v1/',
    `/${'x/'.repeat(3000)}`,
  );
  const target = fc
    .tuple(
      fc.oneof(fc.constantFrom(...paths), oddPath, wholePath),
      fc.option(fc.constantFrom(...ODD_QUERIES), { nil: null }),
    )
    .map(([p, q]) => withQuery(p, q));

  const host = fc.oneof(
    { weight: 12, arbitrary: fc.constant<Array<[string, string]>>([['Host', '127.0.0.1']]) },
    { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([]) },
  );
  const build = (
    method: string,
    tgt: string,
    headers: Array<[string, string]>,
    body: Uint8Array | undefined,
    framing: Hostile['framing'],
  ): Hostile => ({ method, target: tgt, headers, framing, ...(body === undefined ? {} : { body }) });

  // Paths, methods and queries, without a body.
  const addressing = fc
    .record({
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...METHODS) },
        { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_METHODS) },
      ),
      target,
      auth,
      host,
    })
    .map((r) => build(r.method, r.target, [...r.host, ...r.auth], undefined, 'length'));
  // JSON routes with broken JSON, JSON of the wrong shape, huge numbers, under any content type.
  const jsonBodies = fc.oneof(
    fc.constantFrom(...BROKEN_JSON),
    fc.constantFrom(...HUGE_NUMBERS),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  );
  const bodies = fc
    .record({
      method: fc.constantFrom('POST', 'PUT', 'PATCH'),
      path: fc.constantFrom(...paths),
      body: jsonBodies,
      type: fc.oneof(
        { weight: 4, arbitrary: fc.constant('application/json') },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      framing: fc.oneof(
        { weight: 6, arbitrary: fc.constant<Hostile['framing']>('length') },
        { weight: 1, arbitrary: fc.constant<Hostile['framing']>('chunked') },
      ),
      auth,
    })
    .map((r) =>
      build(
        r.method,
        r.path,
        [['Host', '127.0.0.1'], ...r.auth, ...(r.type === null ? [] : [['Content-Type', r.type] as [string, string]])],
        text(r.body),
        r.framing,
      ),
    );
  // File references outside the allowed folder, and transfers of unknown modes.
  const references = fc
    .record({
      path: fc.constantFrom(
        '/api/v1/datastorage/nodes',
        `/api/v1/datastorage/nodes/${t.uid}/children`,
        `/api/v1/datastorage/nodes/${t.uid}/data`,
      ),
      file: fc.constantFrom(...fileReferences(t)),
      mode: fc.constantFrom<unknown>('file-reference', undefined, 'shared-memory', 7, null),
    })
    .map((r) =>
      build(
        r.path.endsWith('/data') ? 'PUT' : 'POST',
        r.path,
        [
          ['Host', '127.0.0.1'],
          ['Authorization', `Bearer ${TOKEN}`],
          ['Content-Type', 'application/json'],
        ],
        text(JSON.stringify({ transfer: { mode: r.mode, file_path: r.file } })),
        'length',
      ),
    );
  // Bodies where none belongs, of 100 kB, with and without framing; and bodies over the payload limit.
  const misplaced = fc
    .record({
      method: fc.constantFrom('DELETE', 'GET', 'OPTIONS'),
      path: fc.constantFrom(...paths),
      size: fc.constantFrom(100_000, 10, MAX_PAYLOAD + 1, 3 * MAX_PAYLOAD),
      framing: fc.constantFrom<Hostile['framing']>('length', 'chunked', 'none'),
    })
    .map((r) =>
      build(
        r.method,
        r.path,
        [
          ['Host', '127.0.0.1'],
          ['Authorization', `Bearer ${TOKEN}`],
        ],
        Buffer.alloc(r.size, 0x61),
        r.framing,
      ),
    );
  // Direct uploads of bytes that are no image, under hostile names and formats.
  const uploads = fc
    .record({
      headers: fc.constantFrom(...ODD_HEADERS),
      body: fc.constantFrom(
        'not an image',
        '\u0000\u0001NRRD0004\n',
        'NRRD0004\ntype: float\ndimension: 99999\nsizes: 99999 99999 99999\nencoding: raw\n\n',
      ),
    })
    .map((r) =>
      build(
        'POST',
        '/api/v1/datastorage/nodes?name=up',
        [
          ['Host', '127.0.0.1'],
          ['Authorization', `Bearer ${TOKEN}`],
          ['Content-Type', 'application/octet-stream'],
          ...r.headers,
        ],
        text(r.body),
        'length',
      ),
    );
  // Headers that break framing or authentication, on any route.
  const headers = fc
    .record({
      method: fc.constantFrom(...METHODS),
      path: fc.constantFrom(...paths),
      extra: fc.constantFrom(...ODD_HEADERS),
    })
    .map((r) =>
      build(
        r.method,
        r.path,
        [['Host', '127.0.0.1'], ['Authorization', `Bearer ${TOKEN}`], ...r.extra],
        r.method === 'GET' ? undefined : text('{}'),
        'length',
      ),
    );

  return fc.oneof(
    { weight: 5, arbitrary: addressing },
    { weight: 5, arbitrary: bodies },
    { weight: 2, arbitrary: references },
    { weight: 2, arbitrary: misplaced },
    { weight: 1, arbitrary: uploads },
    { weight: 2, arbitrary: headers },
  );
}

function describe(r: Hostile): string {
  const body =
    r.body === undefined
      ? ''
      : ` + ${r.body.length} bytes (${r.framing}): ${JSON.stringify(Buffer.from(r.body.subarray(0, 60)).toString('utf8'))}`;
  return `${r.method} ${JSON.stringify(r.target.slice(0, 120))} [${r.headers.map(([k, v]) => `${k}: ${JSON.stringify(v.slice(0, 40))}`).join('; ')}]${body}`;
}

/** A documented answer: success, a problem body whose code and status match the documentation, or a bare HTTP-layer answer. */
function assertDocumented(out: RawOutcome, what: string, head: boolean): void {
  assert.equal(out.kind, 'answer', `${what}: ${out.kind === 'answer' ? '' : `${out.kind} (${out.detail})`}`);
  if (out.kind !== 'answer') return;
  assert.ok(
    out.status < 500 || out.status >= 503,
    `${what}: HTTP ${out.status} ${out.body.toString('utf8').slice(0, 300)}`,
  );
  if (out.status < 400) {
    assert.ok(out.status >= 200 && out.status < 300, `${what}: HTTP ${out.status}`);
    return;
  }
  // The answer to HEAD has no body to carry the problem: its status must be one a documented code has.
  if (head) {
    assert.ok(
      BARE_STATUSES.has(out.status) || Object.values(PROBLEMS).some(([status]) => status === out.status),
      `${what}: HEAD answered ${out.status}`,
    );
    return;
  }
  if (out.body.length === 0) {
    assert.ok(BARE_STATUSES.has(out.status), `${what}: a bare ${out.status} is not one the HTTP layer gives`);
    return;
  }
  assert.match(out.headers['content-type'] ?? '', /application\/json/, `${what}: problem without JSON content type`);
  const problem = (JSON.parse(out.body.toString('utf8')) as { error?: Record<string, unknown> }).error;
  assert.ok(problem, `${what}: a ${out.status} answer without an error object`);
  const code = problem.code as ProblemCode;
  assert.ok(code in PROBLEMS && code !== 'SERVICE_UNAVAILABLE', `${what}: undocumented code ${String(code)}`);
  const [usual, title] = PROBLEMS[code];
  assert.ok(
    out.status === usual || (code === 'NO_DATA' && out.status === 422),
    `${what}: ${code} answered with HTTP ${out.status}`,
  );
  assert.equal(problem.title, title, what);
  assert.equal(typeof problem.message, 'string', what);
}

async function scene(dir: string): Promise<{ allowed: string; outside: string; open: string }> {
  const allowed = join(dir, 'allowed');
  const outside = join(dir, 'outside');
  await mkdir(allowed);
  await mkdir(outside);
  const open = await writeImage(allowed, 'ct.nrrd');
  const out = await writeImage(outside, 'out.nrrd');
  await symlink(out, join(allowed, 'link-out.nrrd'));
  // A detached header inside the folder whose data file lies outside it.
  await writeFile(
    join(allowed, 'escape.nhdr'),
    `NRRD0004\ntype: int16\ndimension: 3\nsizes: 4 3 2\nencoding: raw\nendian: little\ndata file: ${out}\n`,
  );
  return { allowed, outside, open };
}

async function targetsOf(wb: TestWorkbench, dirs: { allowed: string; outside: string }): Promise<Targets> {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const nodes = await wb.call('GET', '/datastorage/nodes', { headers: auth });
  const cells = await wb.call('GET', '/rendering/editors/mxn/windows', { headers: auth });
  return { uid: nodes.json.data[0].uid as string, cell: cells.json[0].id as string, ...dirs };
}

const H = (method: string, path: string, headers: string[] = []): string =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
const STRICT = { timeoutMs: ANSWER_WITHIN_MS, untilClose: true };

function problemOf(out: RawOutcome): { status: number; code: string; message: string } {
  assert.equal(out.kind, 'answer', out.kind === 'answer' ? '' : `${out.kind}: ${out.detail}`);
  if (out.kind !== 'answer') throw new Error('unreachable');
  assert.ok(out.body.length > 0, `HTTP ${out.status} without a problem body`);
  const error = (JSON.parse(out.body.toString('utf8')) as { error: { code: string; message: string } }).error;
  return { status: out.status, code: error.code, message: error.message };
}

test('a 20,000-deep JSON array is a 400 INVALID_REQUEST on every JSON route, not a 500', async () => {
  await withWorkbench({}, async (wb) => {
    const deepArray = deep(20_000, '[', ']');
    for (const [method, path] of [
      ['POST', '/datastorage/nodes'],
      ['PUT', '/rendering/editors/mxn/layout'],
      ['PUT', '/rendering/selected-position'],
      ['POST', '/rendering/update'],
    ] as const) {
      const a = await wb.call(method, path, { body: deepArray, headers: { 'content-type': 'application/json' } });
      assert.equal(a.status, 400, `${method} ${path}: ${a.text.slice(0, 200)}`);
      assert.equal(a.json.error.code, 'INVALID_REQUEST');
    }
    const nested = await wb.call('POST', '/datastorage/nodes', {
      body: deepArray,
      headers: { 'content-type': 'application/json' },
    });
    assert.match(nested.json.error.message, /nested deeper than 256 levels/);
    assert.deepEqual(
      wb.events.entries.filter((e) => e.error !== undefined),
      [],
    );
    assert.equal((await wb.call('GET', '/health')).status, 200);
  });
});

test('a 100 kB body with a DELETE gets the answer to the DELETE, framed or not, and never a reset', async () => {
  await withWorkbench({}, async (wb) => {
    const created = await wb.call('POST', '/datastorage/nodes', { json: { name: 'victim' } });
    const uid = created.json.data.uid as string;
    const body = Buffer.alloc(100_000, 0x61);
    const framed = await rawRequest(
      wb.port,
      [H('DELETE', '/api/v1/datastorage/nodes/nope', ['Connection: close', `Content-Length: ${body.length}`]), body],
      STRICT,
    );
    assert.deepEqual([problemOf(framed).status, problemOf(framed).code], [404, 'NODE_NOT_FOUND']);
    const chunked = await rawRequest(
      wb.port,
      [
        H('DELETE', `/api/v1/datastorage/nodes/${uid}`, ['Connection: close', 'Transfer-Encoding: chunked']),
        `${body.length.toString(16)}\r\n`,
        body,
        '\r\n0\r\n\r\n',
      ],
      STRICT,
    );
    assert.ok(chunked.kind === 'answer' && chunked.status === 200, JSON.stringify(chunked).slice(0, 200));
    // Without framing the bytes after the head are a second, malformed request: the DELETE is
    // answered first, the rest gets a 400, and the connection is closed without a reset, in one
    // write or with the body arriving while the DELETE is being answered.
    for (const parts of [
      [H('DELETE', '/api/v1/datastorage/nodes/nope'), body],
      [
        H('DELETE', '/api/v1/datastorage/nodes/nope'),
        { pauseMs: 20 },
        body.subarray(0, 50_000),
        { pauseMs: 20 },
        body.subarray(50_000),
      ],
    ]) {
      const unframed = await rawRequest(wb.port, parts, STRICT);
      assert.deepEqual([problemOf(unframed).status, problemOf(unframed).code], [404, 'NODE_NOT_FOUND']);
    }
    assert.equal((await wb.call('GET', '/health')).status, 200);
  });
});

test('a body over the payload limit gets its bare 413 after the client finished sending, without a reset; with Expect: 100-continue at once', async () => {
  await withWorkbench({ maxPayloadBytes: 64 * 1024 }, async (wb) => {
    const big = Buffer.alloc(1024 * 1024, 1);
    const pieces: RawPart[] = [];
    for (let at = 0; at < big.length; at += 128 * 1024) pieces.push(big.subarray(at, at + 128 * 1024), { pauseMs: 5 });
    const head = ['Content-Type: application/octet-stream', 'X-MITK-Data-Format: nrrd'];
    for (const framing of [[`Content-Length: ${big.length}`], ['Transfer-Encoding: chunked']]) {
      const chunked = framing[0] === 'Transfer-Encoding: chunked';
      const body = chunked ? [`${big.length.toString(16)}\r\n`, ...pieces, '\r\n0\r\n\r\n'] : pieces;
      const out = await rawRequest(
        wb.port,
        [H('POST', '/api/v1/datastorage/nodes', ['Connection: close', ...head, ...framing]), ...body],
        STRICT,
      );
      assert.ok(out.kind === 'answer', `${framing[0]}: ${JSON.stringify(out).slice(0, 200)}`);
      assert.deepEqual([out.status, out.body.length], [413, 0]);
    }
    // Kept alive, the connection carries the next request once the refused body is read.
    const next = await rawRequest(
      wb.port,
      [
        H('POST', '/api/v1/datastorage/nodes', [...head, `Content-Length: ${big.length}`]),
        big,
        H('GET', '/api/v1/health', ['Connection: close']),
      ],
      { timeoutMs: ANSWER_WITHIN_MS },
    );
    assert.ok(next.kind === 'answer' && next.status === 413);
    const waiting = await rawRequest(
      wb.port,
      [H('POST', '/api/v1/datastorage/nodes', [...head, 'Expect: 100-continue', `Content-Length: ${big.length}`])],
      STRICT,
    );
    assert.ok(waiting.kind === 'answer', JSON.stringify(waiting).slice(0, 200));
    assert.deepEqual([waiting.status, waiting.interim], [413, []], 'no 100 Continue for a body that is refused anyway');
    const small = await rawRequest(
      wb.port,
      [
        H('POST', '/api/v1/datastorage/nodes', [
          ...head,
          'Connection: close',
          'Expect: 100-continue',
          'Content-Length: 5',
        ]),
        { pauseMs: 20 },
        'abcde',
      ],
      STRICT,
    );
    assert.ok(small.kind === 'answer' && small.interim.includes(100), 'a body within the limit is invited');
    assert.equal((await wb.call('GET', '/datastorage/nodes')).json.meta.total_count, 0, 'nothing was created');
  });
});

test('requests the HTTP parser refuses get a 400 INVALID_REQUEST problem, CONNECT gets an answer, a missing Host is no error', async () => {
  await withWorkbench({ token: TOKEN }, async (wb) => {
    for (const bad of [
      H('FROB', '/api/v1/health'),
      H('get', '/api/v1/health'),
      H('POST', '/api/v1/datastorage/nodes', ['Content-Length: 3', 'Content-Length: 4']),
      `GET /api/v1/health HTTP/9.9\r\n\r\n`,
      H('GET', '/api/v1/a b'),
    ]) {
      const out = await rawRequest(wb.port, [bad], STRICT);
      assert.deepEqual([problemOf(out).status, problemOf(out).code], [400, 'INVALID_REQUEST'], bad);
    }
    // RFC 9112 §6.3: a transfer coding other than chunked last leaves the body without an end.
    for (const coding of ['gzip', 'identity']) {
      const unframed = await rawRequest(
        wb.port,
        [
          H('POST', '/api/v1/rendering/update', [`Authorization: Bearer ${TOKEN}`, `Transfer-Encoding: ${coding}`]),
          '{}',
        ],
        STRICT,
      );
      assert.deepEqual([problemOf(unframed).status, problemOf(unframed).code], [400, 'INVALID_REQUEST'], coding);
    }
    const headers = await rawRequest(wb.port, [H('GET', '/api/v1/health', [`X-Huge: ${'h'.repeat(20_000)}`])], STRICT);
    assert.ok(
      headers.kind === 'answer' && headers.status === 431 && headers.body.length === 0,
      JSON.stringify(headers).slice(0, 200),
    );
    const tunnel = await rawRequest(wb.port, [H('CONNECT', 'evil.example:443'), 'tunnelled bytes'], STRICT);
    assert.deepEqual(
      [problemOf(tunnel).status, problemOf(tunnel).code],
      [401, 'UNAUTHORIZED'],
      'CONNECT passes the same checks as any request',
    );
    const authorized = await rawRequest(
      wb.port,
      [H('CONNECT', 'evil.example:443', [`Authorization: Bearer ${TOKEN}`])],
      STRICT,
    );
    assert.ok(
      authorized.kind === 'answer' && authorized.status === 404 && authorized.body.length === 0,
      'and then is an unknown route',
    );
    const hostless = await rawRequest(wb.port, ['GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n'], STRICT);
    assert.ok(hostless.kind === 'answer' && hostless.status === 200);
    assert.ok(
      wb.events.entries.some((e) => e.method === 'CONNECT'),
      'CONNECT is in the request log',
    );
  });
});

test('fuzz: a few hundred seeded hostile requests each get a documented answer, never a 500 or a reset, and the server stays up', async () => {
  await withTempDir(async (dir) => {
    const dirs = await scene(dir);
    await withWorkbench(
      { token: TOKEN, allowedDirs: [dirs.allowed], open: [dirs.open], maxPayloadBytes: MAX_PAYLOAD },
      async (wb) => {
        const targets = await targetsOf(wb, dirs);
        const statuses = new Map<number, number>();
        const failures: string[] = [];
        for (const r of fc.sample(hostileRequests(targets), { seed: 1212, numRuns: 300 })) {
          const out = await rawRequest(wb.port, bytesOf(r), { ...STRICT, head: r.method === 'HEAD' });
          try {
            assertDocumented(out, describe(r), r.method === 'HEAD');
          } catch (err) {
            failures.push((err as Error).message.split('\n')[0] ?? '');
          }
          if (out.kind === 'answer') statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1);
        }
        assert.deepEqual(failures, [], `${failures.length} of 300 requests were mishandled`);
        const health = await wb.call('GET', '/health');
        assert.equal(health.status, 200, 'the server still answers its health check');
        assert.deepEqual(
          wb.events.entries.filter((e) => e.error !== undefined),
          [],
          'no request ended in an unexpected exception',
        );
        // The mix must reach the routes, not only the HTTP layer: successes, body errors and refusals all occur.
        for (const status of [200, 400, 403, 404, 413])
          assert.ok((statuses.get(status) ?? 0) > 0, `no ${status} among ${JSON.stringify([...statuses])}`);
      },
    );
  });
});
