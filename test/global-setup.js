/**
 * Jest's global setup: the tests that start real processes (servers, `mds` commands) run the
 * compiled dist/, so bring it up to date with src/ first. An incremental build, so a run with
 * nothing changed pays little for it.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '..');
  const run = (script, args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  if (!existsSync(path.join(root, 'src', 'db', 'generated', 'prisma'))) run(path.join(root, 'scripts', 'prisma-generate.js'), []);
  try {
    run(require.resolve('typescript/bin/tsc'), ['-b', 'tsconfig.dev.json']); // the service, and tools/ and bench/ that tests start
  } catch {
    // tsc still writes dist/ when it finds type errors; the type-check is `npm test`'s own
    // step, so a single test file runs meanwhile.
    process.stderr.write('\nglobal setup: dist/ was built with type errors (above); tests go on\n');
  }
};
