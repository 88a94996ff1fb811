#!/usr/bin/env node
/**
 * `npm start`: run the built server (dist/, built once by `npm install`). It never rebuilds a
 * build that exists, so a second start cannot rewrite the files of a server already running;
 * after editing src/, run `npm run build` first (this warns when dist/ is older than src/).
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'src', 'server.js');
/** Written by every build that changed anything (tsconfig.build.json). */
const buildInfo = path.join(root, 'dist', '.tsbuildinfo');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'generated') continue;
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

if (!existsSync(entry)) {
  process.stderr.write('dist/ is missing (installed with --ignore-scripts?): building it once\n');
  const run = (script, args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  run(path.join(root, 'scripts', 'prisma-generate.js'), []);
  run(require.resolve('typescript/bin/tsc'), ['-b', 'tsconfig.build.json']);
} else if (existsSync(buildInfo) && newest(path.join(root, 'src')) > statSync(buildInfo).mtimeMs) {
  process.stderr.write('note: src/ changed since dist/ was built; run `npm run build` to serve the change\n');
}
// A first embedded start's seed starts in its child now, while the server's modules load.
require(path.join(root, 'dist', 'src', 'seed-process.js')).seedEarly();
require(entry).main();
