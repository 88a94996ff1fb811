/** Unit, integration and API tests; see CONTRIBUTING.md. ts-jest transpiles each file alone (tsconfig.jest.json): `npm test` type-checks separately. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }] },
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/global-setup.js',
  testTimeout: 60000,
  maxWorkers: 2,
};
