import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLING, esbuildOptions } from '../../infra/constructs/exporter-function';
import { REPO_ROOT } from '../../infra/config';

/**
 * The deployed code is minified; an error's name must survive it. ReportFailed's errorType, the
 * owners' advice (failure-notice.ts) and the fan-out's Retry and failure step go by the name, which
 * minification alone shortens to a letter (it did: every deployed error was named "s" or so).
 */
describe('the Lambdas\' bundling', () => {
  it('keeps the error classes\' names through minification', async () => {
    const bundled = await build({
      stdin: {
        contents: "export { AuthenticationError, RetryableExportError } from './shared/core/errors';",
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      minify: BUNDLING.minify ?? false,
      keepNames: BUNDLING.keepNames ?? false,
      target: BUNDLING.target ?? 'node22',
    });
    const code = bundled.outputFiles[0]!.text;
    const errors = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as Record<string, new (message: string) => Error>;
    expect(new errors.AuthenticationError!('401').name).toBe('AuthenticationError');
    expect(new errors.RetryableExportError!('503').name).toBe('RetryableExportError');
  });

  it('gives bundles built outside CDK (the bench, the tests) every option of BUNDLING', () => {
    // The options esbuildOptions carries over; one BUNDLING gains must be added there (the bench once
    // measured bundles without keepNames, 0.1 MB smaller than the deployed ones).
    const carried = ['format', 'minify', 'keepNames', 'sourceMap', 'sourcesContent', 'target', 'mainFields', 'banner', 'externalModules', 'esbuildArgs'];
    const notEsbuild = ['forceDockerBundling'];
    expect(Object.keys(BUNDLING).filter((key) => !carried.includes(key) && !notEsbuild.includes(key))).toEqual([]);
    expect(Object.keys(BUNDLING.esbuildArgs ?? {})).toEqual(['--alias']);
    const options = esbuildOptions(REPO_ROOT);
    expect(options).toMatchObject({ format: 'esm', minify: BUNDLING.minify, keepNames: BUNDLING.keepNames, sourcemap: 'linked', sourcesContent: false, banner: { js: BUNDLING.banner } });
    expect(Object.values(options.alias ?? {}).every((path) => path.startsWith(REPO_ROOT))).toBe(true);
  });
});
