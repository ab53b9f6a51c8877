// jest runs test files in parallel worker processes (two here); every file starts its own server in beforeAll,
// so parallel files never share state. The package is TypeScript and ESM: run jest with
// NODE_OPTIONS=--experimental-vm-modules, TypeScript goes through esbuild-transform.js, and ts-resolver.cjs
// finds the sources' '.ts' files behind their '.js' import names.
export default {
  rootDir: '.',
  testMatch: ['<rootDir>/**/*.test.ts'],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': '<rootDir>/esbuild-transform.js' },
  // Installed as a dependency, the package's sources sit under node_modules, which jest skips by default.
  transformIgnorePatterns: ['/node_modules/(?!orch/)'],
  resolver: '<rootDir>/ts-resolver.cjs',
  globalSetup: '<rootDir>/global-setup.js',
  maxWorkers: 2,
};
