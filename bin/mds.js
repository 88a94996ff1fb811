#!/usr/bin/env node
'use strict';
// The `mds` command. The TypeScript is compiled to dist/ by `npm install` (prepare) or
// `npm run build`.
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
