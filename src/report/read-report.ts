import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { RESULT_VERSION, type RunResult } from '../result/result.js';
import { JSON_REPORT_FILE } from './json.js';
import { ReportError } from './report-error.js';

const STATUS = { enum: ['passed', 'failed', 'error', 'skipped'] };
const SPAN = {
  type: 'object',
  required: ['file', 'line', 'col'],
  properties: { file: { type: 'string' }, line: { type: 'integer' }, col: { type: 'integer' } },
};
const ERROR = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'string' }, message: { type: 'string' } },
};

/**
 * What a reader relies on in a `report.json`. Fields it does not list may be there: a newer
 * wbplay of the same result version may add optional fields, and they are carried along.
 */
const RUN_RESULT_SCHEMA = {
  type: 'object',
  required: ['version', 'startedAt', 'durationMs', 'status', 'provenance', 'cases', 'summary'],
  properties: {
    version: { type: 'integer' },
    startedAt: { type: 'string' },
    durationMs: { type: 'number', minimum: 0 },
    status: STATUS,
    provenance: {
      type: 'object',
      required: ['playbooks', 'wbplay'],
      properties: {
        playbooks: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'sha256'],
            properties: { path: { type: 'string' }, sha256: { type: 'string' } },
          },
        },
        workbench: { type: 'object' },
        wbplay: { type: 'string' },
      },
    },
    cases: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'playbook', 'status', 'durationMs', 'steps'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          playbook: { type: 'string' },
          status: STATUS,
          durationMs: { type: 'number', minimum: 0 },
          steps: {
            type: 'array',
            items: {
              type: 'object',
              required: [
                'index',
                'kind',
                'description',
                'span',
                'status',
                'durationMs',
                'attempts',
                'artefacts',
                'notices',
              ],
              properties: {
                index: { type: 'integer' },
                kind: { type: 'string' },
                description: { type: 'string' },
                span: SPAN,
                status: STATUS,
                durationMs: { type: 'number', minimum: 0 },
                attempts: {
                  type: 'array',
                  items: { type: 'object', required: ['n', 'startedAt', 'durationMs'], properties: { error: ERROR } },
                },
                error: ERROR,
                artefacts: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['kind', 'path'],
                    properties: { kind: { type: 'string' }, path: { type: 'string' } },
                  },
                },
                image: { type: 'object', required: ['golden', 'outcome', 'message'] },
                notices: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    summary: { type: 'object' },
  },
} as const;

let validator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

/**
 * Reads the run result of a shard: `<dir>/report.json`, or the JSON file itself. Every way it
 * can be wrong ends in a `ReportError` that names the file and says what to do.
 */
export async function readRunResult(location: string): Promise<RunResult> {
  // A shard is named by its output folder; a path to a .json file is taken as the report itself.
  const file = (await isFolder(location)) || !location.endsWith('.json') ? join(location, JSON_REPORT_FILE) : location;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be read (${(error as Error).message})`;
    throw new ReportError(
      'REPORT_NOT_FOUND',
      `${file} ${why}`,
      `give the output folder of a finished run (it holds ${JSON_REPORT_FILE}; keep the json reporter on)`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ReportError(
      'REPORT_INVALID',
      `${file} is not valid JSON: ${(error as Error).message}`,
      'the file may be truncated; run that shard again',
    );
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (typeof data === 'object' && data !== null && typeof version === 'number' && version !== RESULT_VERSION) {
    throw new ReportError(
      'REPORT_VERSION',
      `${file} has result version ${version}; this wbplay reads version ${RESULT_VERSION}`,
      'merge reports with the wbplay version that wrote them',
    );
  }
  validator ??= new Ajv({ allErrors: false, strict: false }).compile(RUN_RESULT_SCHEMA);
  if (!validator(data)) {
    const first = validator.errors?.[0];
    const where = first?.instancePath || '/';
    throw new ReportError(
      'REPORT_INVALID',
      `${file} is not a wbplay run result: at ${where}, ${first?.message ?? 'unexpected content'}`,
      `give a ${JSON_REPORT_FILE} written by \`wbplay run\``,
    );
  }
  return data as RunResult;
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
