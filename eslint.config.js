import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * The folder graph of src/: each folder names the folders it may import, bottom layers first.
 * An import of any other folder fails lint, so the pipeline order (playbook -> steps -> compile
 * -> run -> report -> cli) and the independence of the low layers cannot erode. Only the CLI and
 * the package root may reach the reference workbench (sim/).
 */
const LOW = ['api', 'markup', 'diagnostics', 'image', 'files', 'result'];
export const LAYERS = {
  api: [],
  markup: [],
  diagnostics: [],
  image: [],
  files: ['image'],
  result: ['api', 'diagnostics', 'image', 'files'],
  // Medical image files (NRRD, NIfTI, MetaImage, DICOM) are read and written once, here: the
  // reference workbench reads them, and a step reads a DICOM series on the client's side too.
  volume: ['api', 'files', 'image'],
  playbook: ['diagnostics'],
  compare: [...LOW],
  figure: [...LOW],
  client: [...LOW],
  // An archive's DICOMweb client (QIDO-RS, WADO-RS, STOW-RS) and its local cache: beside the
  // workbench's client (whose host rules it shares), knowing nothing of playbooks; it checks and
  // writes DICOM files.
  dicomweb: [...LOW, 'volume', 'client'],
  sim: [...LOW, 'volume'],
  steps: [...LOW, 'volume', 'client', 'dicomweb', 'compare', 'figure', 'playbook'],
  compile: [...LOW, 'volume', 'client', 'dicomweb', 'compare', 'figure', 'playbook', 'steps'],
  run: [...LOW, 'volume', 'client', 'dicomweb', 'compare', 'figure', 'playbook', 'steps', 'compile'],
  report: [...LOW, 'volume', 'client', 'dicomweb', 'compare', 'figure', 'playbook', 'steps', 'compile', 'run'],
  record: [...LOW, 'volume', 'client', 'dicomweb'],
  // Verdicts on a finished run's cases: read from its report, served by the report's page server.
  review: [...LOW, 'report'],
  cli: [
    ...LOW,
    'volume',
    'client',
    'dicomweb',
    'compare',
    'figure',
    'playbook',
    'steps',
    'compile',
    'run',
    'report',
    'record',
    'review',
    'sim',
  ],
};

function folderRule(folder) {
  const forbidden = Object.keys(LAYERS).filter((other) => other !== folder && !LAYERS[folder].includes(other));
  if (forbidden.length === 0) return [];
  return [
    {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
                message: `src/${folder}/ may import only ${LAYERS[folder].length ? LAYERS[folder].join(', ') : 'no other folder'} (the folder graph in eslint.config.js).`,
              },
            ],
          },
        ],
      },
    },
  ];
}

export default tseslint.config(
  // Generated code (ajv standalone validators) is checked by the test that regenerates it.
  { ignores: ['dist/', 'node_modules/', 'wbplay-out/', 'test/fixtures/', '.bench-tmp/', '**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  ...Object.keys(LAYERS).flatMap(folderRule),
  {
    // The CLI, benchmarks and scripts are where output is allowed to happen.
    files: ['src/cli/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
);
