#!/usr/bin/env node
/**
 * `npm test`: ESLint, the type-checks (the service, and web/: the browser pages), then every
 * test (jest). With arguments, jest alone with them: `npm test -- test/unit/time.test.ts`,
 * `npm test -- -t "free key"`.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);

function run(script, argv, extra = []) {
  const r = spawnSync(process.execPath, [...extra, script, ...argv], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (args.length === 0) {
  run(path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), ['.']);
  run(require.resolve('typescript/bin/tsc'), ['--noEmit', '-p', 'tsconfig.json']);
  run(require.resolve('typescript/bin/tsc'), ['--noEmit', '-p', 'web/tsconfig.json']); // the browser pages (DOM types)
}
// PGlite loads its WASM through a dynamic import, which jest's VM supports only with this flag.
run(path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), args, ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning']);
