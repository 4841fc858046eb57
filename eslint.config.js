// Type-aware linting: floating promises and misused promises are the bugs a streaming exporter
// is most likely to ship (an un-awaited write that loses the tail of a file). The second half
// enforces the layers of docs/architecture.md: a wrong import fails CI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of shared/, each with the layers it may import. A layer never imports one that is not
 * listed (an upper one, or a sibling): imports point down only. Doors (lambdas/, cli/) sit on top.
 */
const LAYERS = {
  core: [],
  table: ['core'],
  'planning-api': ['core'],
  render: ['core', 'table'],
  storage: ['core'],
  ledger: ['core'],
  email: ['core', 'table'],
  channels: ['core'],
  events: ['core'],
  links: ['core', 'storage'],
  secrets: ['core', 'planning-api', 'links'],
  report: ['core', 'table', 'planning-api', 'render', 'storage', 'ledger', 'email', 'secrets', 'channels'],
  definitions: ['core', 'storage', 'report'],
  messages: ['core', 'table', 'storage', 'ledger', 'email', 'channels', 'links', 'report', 'definitions'],
  job: ['core', 'table', 'planning-api', 'render', 'storage', 'ledger', 'email', 'channels', 'events', 'links', 'secrets', 'report', 'definitions', 'messages'],
  'fan-out': ['core', 'storage', 'ledger', 'report', 'messages', 'job'],
  http: ['core', 'storage', 'ledger', 'email', 'links', 'report', 'definitions', 'messages', 'job'],
  ops: ['core', 'storage', 'ledger', 'report', 'definitions', 'messages'],
  preflight: ['core', 'planning-api', 'secrets', 'report', 'definitions', 'ops'],
};
/** Top-level folders that runtime code under shared/ never imports. */
const DOORS_AND_TOOLS = ['lambdas', 'cli', 'infra', 'simulator', 'test', 'bench', 'scripts'];

/** The only modules that talk to AWS: each takes an SDK client in its constructor, with a default. */
const AWS_ADAPTERS = [
  'shared/storage/s3-client.ts',
  'shared/storage/s3-storage.ts',
  'shared/ledger/dynamodb-ledger.ts',
  'shared/links/presign.ts',
  'shared/email/ses-mailer.ts',
  'shared/events/event-bridge.ts',
  'shared/http/lambda-launcher.ts',
  'shared/secrets/secret-source.ts',
  'shared/definitions/scheduler-client.ts',
  'shared/fan-out/step-functions-starter.ts',
  'shared/preflight/cloudformation-stacks.ts',
  'shared/preflight/ssm-bootstrap.ts',
  'shared/preflight/secrets-manager-reader.ts',
  'shared/preflight/ses-account.ts',
  'shared/preflight/lambda-account.ts',
];
/**
 * The exceljs-internals modules of the xlsx renderer are the only place that knows exceljs: they
 * import it, and every reach into its (or archiver's) internals sits in them, version-checked.
 */
const EXCELJS_OWNER = 'shared/render/xlsx/exceljs-internals/**/*.ts';

const EXCELJS = {
  group: ['exceljs', 'exceljs/**'],
  message: 'Only the exceljs-internals modules (shared/render/xlsx/exceljs-internals/) import exceljs; the rest of the renderer uses what they export.',
};
/** The PDF renderer (shared/render/pdf/) is the only place that knows pdfkit and its font reader, fontkit. */
const PDFKIT_OWNER = 'shared/render/pdf/**/*.ts';

const PDFKIT = {
  group: ['pdfkit', 'pdfkit/**', 'fontkit', 'fontkit/**'],
  message: 'Only the PDF renderer (shared/render/pdf/) imports pdfkit and fontkit; the rest of the code uses renderReportPdf.',
};
/** Configuration comes from the doors through loadConfig, never from process.env. */
const PROCESS_ENV = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message: 'Read configuration through shared/core/config.ts (loadConfig) only.',
};
/** exceljs's and archiver's internals are underscore members: reaching one outside EXCELJS_OWNER is a patch out of its place. */
const UNDERSCORE_MEMBERS = ['MemberExpression[property.name=/^_/]', 'TSPropertySignature[key.name=/^_/]'].map((selector) => ({
  selector,
  message: 'A reach into exceljs or archiver internals (an underscore member) belongs in shared/render/xlsx/exceljs-internals/, version-checked.',
}));
const AWS_SDK = {
  group: ['@aws-sdk/*'],
  message: `Only the AWS adapters import @aws-sdk/* (${AWS_ADAPTERS.join(', ')}); take the adapter instead.`,
};
const upward = (names, why) => ({ regex: `^(\\.\\./)+(${names.join('|')})(/|$)`, message: why });

function restrictedImports(patterns) {
  return { 'no-restricted-imports': ['error', { patterns }] };
}

const layerConfigs = Object.entries(LAYERS).map(([layer, allowed]) => {
  const forbidden = Object.keys(LAYERS).filter((other) => other !== layer && !allowed.includes(other));
  const patterns = [
    upward(DOORS_AND_TOOLS, `shared/${layer} is runtime code: it never imports a door, the simulator, tests or tools.`),
  ];
  if (forbidden.length > 0) {
    patterns.push(
      upward(forbidden, `shared/${layer} may import only ${allowed.length ? allowed.join(', ') : 'nothing else in shared/'} (docs/architecture.md).`),
    );
  }
  return {
    files: [`shared/${layer}/**/*.ts`],
    rules: restrictedImports([
      ...patterns,
      ...(layer === 'render' ? [] : [EXCELJS, PDFKIT]),
      AWS_SDK,
    ]),
  };
});

/**
 * shared/report/ in three layers (docs/architecture.md, "shared/report in layers"): the model (what a
 * dataset is, its plan and selectors, the Summary's accumulators, the tables), the figures a run
 * derives from the tables (manifest, changes, trends, alerts), and the run (the definition, the
 * outputs, the names and registry of formats, the run itself). A layer imports only the ones below it,
 * types included: a lower layer takes the narrow type of what it reads, never the definition.
 */
const REPORT_LAYERS = [
  { layer: 'model', folders: ['dataset', 'summary', 'tables'] },
  { layer: 'figures', folders: ['manifest', 'changes', 'trends', 'alerts'] },
  { layer: 'run', folders: ['definition', 'outputs', 'run', 'names', 'registry'] },
];
const reportLayerConfigs = REPORT_LAYERS.slice(0, -1).flatMap(({ layer, folders }, index) => {
  const upper = REPORT_LAYERS.slice(index + 1);
  const names = upper.flatMap((u) => u.folders);
  const why = `shared/report's ${layer} layer (${folders.join(', ')}) never imports a layer above it (${upper.map((u) => `${u.layer}: ${u.folders.join(', ')}`).join('; ')}); take a narrow type of what you read (docs/architecture.md).`;
  const report = layerConfigs.find((c) => c.files[0] === 'shared/report/**/*.ts').rules['no-restricted-imports'][1].patterns;
  return folders.map((folder) => ({ files: [`shared/report/${folder}/**/*.ts`], rules: restrictedImports([...report, upward(names, why)]) }));
});

/** The import rules alone, exported so test/architecture/ can probe them without type information. */
export const importBoundaries = [
  // Doors: they build adapters; they never reach past them to the SDK or exceljs.
  { files: ['lambdas/**/*.ts', 'cli/**/*.ts'], rules: restrictedImports([EXCELJS, PDFKIT, AWS_SDK]) },
  // The bundles' credential chain (an esbuild alias of the SDK's own, BUNDLING): it is built from the SDK's providers.
  { files: ['lambdas/lambda-credentials.ts'], rules: restrictedImports([EXCELJS, PDFKIT]) },
  // The simulator is the demo tenant and the tests' API: it stands alone, as a real server would.
  {
    files: ['simulator/**/*.ts'],
    rules: restrictedImports([upward(['shared', 'lambdas', 'cli', 'infra', 'test', 'bench'], 'The simulator stands alone: it imports nothing of the exporter.'), EXCELJS, PDFKIT, AWS_SDK]),
  },
  ...layerConfigs,
  ...reportLayerConfigs,
  // Within render, only the exceljs-internals modules may import exceljs, and only the PDF renderer pdfkit.
  ...[
    { files: ['shared/render/**/*.ts'], ignores: [EXCELJS_OWNER, PDFKIT_OWNER], libraries: [EXCELJS, PDFKIT] },
    { files: [EXCELJS_OWNER], libraries: [PDFKIT] },
    { files: [PDFKIT_OWNER], libraries: [EXCELJS] },
  ].map(({ libraries, ...scope }) => ({
    ...scope,
    rules: restrictedImports([...layerConfigs.find((c) => c.files[0] === 'shared/render/**/*.ts').rules['no-restricted-imports'][1].patterns, ...libraries]),
  })),
  // The adapters: same layer rules, but the SDK is theirs.
  ...AWS_ADAPTERS.map((file) => {
    const layer = file.split('/')[1];
    const own = layerConfigs.find((c) => c.files[0] === `shared/${layer}/**/*.ts`);
    const patterns = own.rules['no-restricted-imports'][1].patterns.filter((p) => p !== AWS_SDK);
    return { files: [file], rules: restrictedImports(patterns) };
  }),
];

/** The rest of the renderer reaches no internals either: the exceljs-internals modules hold every patch. Exported for test/architecture/. */
export const exceljsInternalsBoundary = {
  files: ['shared/render/**/*.ts'],
  ignores: [EXCELJS_OWNER],
  rules: { 'no-restricted-syntax': ['error', PROCESS_ENV, ...UNDERSCORE_MEMBERS] },
};

/** Functions under shared/ stay short enough to read at once. */
export const MAX_FUNCTION_LINES = 80;
/**
 * The named exceptions: each may not grow past its length today, and says why it is long (test/architecture/function-length.test.ts
 * holds each at its length today: one that gets shorter lowers its line here, and one at 80 lines or fewer leaves the list). A file
 * listed here has its ceiling raised to that length for every function in it.
 */
export const LONG_FUNCTIONS = [
];
const functionLength = (max) => ({ 'max-lines-per-function': ['error', { max, skipBlankLines: true, skipComments: true }] });

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'out/**', 'coverage/**', '.bench-tmp/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Async generators without an await are how a dataset offers AsyncIterable rows uniformly.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', PROCESS_ENV],
    },
  },
  ...importBoundaries,
  exceljsInternalsBoundary,
  {
    // Entry points are the only places allowed to hand process.env to loadConfig.
    files: ['lambdas/**/handler.ts', 'cli/**/*.ts', 'infra/app.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts', 'simulator/cli.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  { files: ['shared/**/*.ts'], rules: functionLength(MAX_FUNCTION_LINES) },
  ...LONG_FUNCTIONS.map(({ file, lines }) => ({ files: [file], rules: functionLength(lines) })),
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
