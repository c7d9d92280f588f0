/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/bench/'],
  transform: { '^.+\\.(t|j|mj)s$': '<rootDir>/test/support/esbuild-transform.js' },
  // @middy/core ships ES modules only; esbuild turns it into CommonJS for the test runtime.
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // Each worker's DynamoDB Local engine (one per worker, started by the global setup).
  setupFiles: ['<rootDir>/test/support/worker-endpoint.ts'],
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', {}]],
};
