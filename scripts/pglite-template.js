#!/usr/bin/env node
/**
 * Part of `npm run build`: dist/pglite-template, the migrated empty database a new embedded
 * DATA_DIR starts from (src/db/pglite-template.ts). Skipped when the one there is current.
 */
'use strict';
const path = require('node:path');
const { buildTemplate, TEMPLATE_DIR } = require(path.join(__dirname, '..', 'dist', 'src', 'db', 'pglite-template.js'));

const started = Date.now();
buildTemplate().then(
  (made) => process.stdout.write(`pglite-template: ${path.relative(process.cwd(), TEMPLATE_DIR)} (${made ? `made, ${Date.now() - started} ms` : 'current'})\n`),
  (err) => {
    process.stderr.write(`pglite-template: ${err.stack}\n`);
    process.exit(1);
  },
);
