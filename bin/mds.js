#!/usr/bin/env node
'use strict';
// The `mds` command. The TypeScript is compiled to dist/ by `npm install` (prepare) or
// `npm run build`.
// An import's young generation stays at its first size: its garbage is short-lived text, and
// letting V8 grow it (to tens of MB, twice over) costs more resident memory than the extra
// scavenges cost time (bench/README.md, import). Long-running commands keep V8's default.
if (process.argv[2] === 'import') require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('mds: not built yet; run `npm run build` (npm install does it) first\n');
  process.exit(1);
}
require(entry)
  .runCli(process.argv.slice(2))
  .then((code) => process.exit(code));
