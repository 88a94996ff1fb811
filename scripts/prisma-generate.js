#!/usr/bin/env node
// Runs `prisma generate` without network access. Generation itself needs no engine
// binary (Prisma 7 with driver adapters compiles queries in WASM), but the CLI insists on
// locating a schema engine; pointing it at any existing file satisfies that check.
'use strict';
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const cli = require.resolve('prisma/build/index.js');
execFileSync(process.execPath, [cli, 'generate', '--schema', path.join(__dirname, '..', 'prisma', 'schema.prisma')], {
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
