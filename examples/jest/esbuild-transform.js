// A jest transformer for TypeScript through esbuild (already one of the package's dependencies): strips the
// types and nothing else, so the test files and the package's TypeScript sources run as written.
import { transformSync } from 'esbuild';

export default {
  process(source, path, options) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      // ESM where jest loads the file as a module (extensionsToTreatAsEsm), CommonJS otherwise.
      format: options.supportsStaticESM ? 'esm' : 'cjs',
      target: 'node20',
      sourcefile: path,
      sourcemap: 'external',
    });
    return { code, map };
  },
};
