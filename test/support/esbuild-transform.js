/**
 * Jest transform: TypeScript (and the ES-module-only packages listed in jest.config.js) to
 * CommonJS with esbuild, the compiler the Lambda bundles are built with. No type checking here;
 * `npm run typecheck` does that.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

const ownSource = readFileSync(__filename, 'utf8');

module.exports = {
  getCacheKey(source, filename) {
    return createHash('sha256').update(ownSource).update(version).update(filename).update(source).digest('hex');
  },
  process(source, filename) {
    const result = transformSync(source, {
      loader: filename.endsWith('.ts') ? 'ts' : 'js',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: filename,
      // import() becomes require(): jest's module registry has no ES module loader without flags.
      supported: { 'dynamic-import': false },
    });
    return { code: result.code };
  },
};
