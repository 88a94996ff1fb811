/** Unit, integration and API tests; see CONTRIBUTING.md. ts-jest transpiles each file alone (tsconfig.jest.json): `npm test` type-checks separately. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }] },
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/global-setup.js',
  testTimeout: 60000,
  // One more worker than the machine's 2 cores: many files wait on processes, clusters and
  // minute closes, and with 2 workers a third of the CPU sat idle (bench/README.md, Test suite).
  maxWorkers: 3,
};
