#!/usr/bin/env node
/**
 * The browser pages the service serves, /dashboard and /graphiql (web/<page>), bundled by esbuild
 * into dist/web/<page>/: index.html (no-cache) and content-hashed assets/ (cached for a year). Part
 * of `npm run build`; `node scripts/build-web.js dashboard` builds one. GraphiQL's Monaco runs its
 * language services in web workers: they are bundled as entry points of their own and their URLs
 * given to the page at build time (web/graphiql/main.ts), so nothing is fetched from a CDN.
 */
'use strict';
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'dist', 'web');

const common = {
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  target: ['chrome110', 'firefox110', 'safari16'],
  legalComments: 'linked',
  logLevel: 'warning',
  metafile: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file', '.png': 'file' },
  assetNames: '[name]-[hash]',
  entryNames: '[name]-[hash]',
};

/** Paths (under /<page>/assets/) of what one entry point produced: its script and the CSS it imports. */
function outputsOf(metafile, entry, assetsDir, page) {
  const url = (file) => `/${page}/assets/${path.relative(assetsDir, path.join(root, file)).split(path.sep).join('/')}`;
  for (const [file, o] of Object.entries(metafile.outputs)) {
    if (o.entryPoint && path.resolve(root, o.entryPoint) === path.resolve(root, entry)) {
      return { script: url(file), css: o.cssBundle ? url(o.cssBundle) : undefined };
    }
  }
  throw new Error(`build-web: no output for ${entry}`);
}

function writeHtml(page, assetsDir, values) {
  let html = readFileSync(path.join(root, 'web', page, 'index.html'), 'utf8');
  for (const [name, value] of Object.entries(values)) html = html.split(`%${name}%`).join(value);
  const left = html.match(/%[A-Z_]+%/);
  if (left) throw new Error(`build-web: web/${page}/index.html: ${left[0]} has no value`);
  writeFileSync(path.join(path.dirname(assetsDir), 'index.html'), html);
}

function fresh(page) {
  const dir = path.join(out, page);
  rmSync(dir, { recursive: true, force: true });
  const assets = path.join(dir, 'assets');
  mkdirSync(assets, { recursive: true });
  return assets;
}

const size = (metafile) => Object.entries(metafile.outputs).filter(([f]) => !f.endsWith('.map')).reduce((n, [, o]) => n + o.bytes, 0);

async function dashboard() {
  const assets = fresh('dashboard');
  const main = path.join('web', 'dashboard', 'main.ts');
  const style = path.join('web', 'dashboard', 'style.css');
  const r = await esbuild.build({ ...common, entryPoints: [main, style], outdir: assets, format: 'esm' });
  const js = outputsOf(r.metafile, main, assets, 'dashboard');
  const css = outputsOf(r.metafile, style, assets, 'dashboard');
  writeHtml('dashboard', assets, { SCRIPT: js.script, STYLE: css.script });
  return size(r.metafile);
}

const WORKERS = {
  editor: 'monaco-editor/esm/vs/editor/editor.worker.js',
  json: 'monaco-editor/esm/vs/language/json/json.worker.js',
  graphql: 'monaco-graphql/esm/graphql.worker.js',
};

async function graphiql() {
  const assets = fresh('graphiql');
  // Workers first: the page needs their hashed names.
  const entries = Object.fromEntries(Object.entries(WORKERS).map(([label, spec]) => [`${label}.worker`, require.resolve(spec)]));
  // No source maps here: large maps of third-party code nobody steps through.
  const w = await esbuild.build({ ...common, sourcemap: false, entryPoints: entries, outdir: assets, format: 'iife' });
  const workerUrls = {};
  for (const [label, spec] of Object.entries(WORKERS)) workerUrls[label] = outputsOf(w.metafile, path.relative(root, require.resolve(spec)), assets, 'graphiql').script;
  const main = path.join('web', 'graphiql', 'main.ts');
  const r = await esbuild.build({
    ...common,
    sourcemap: false,
    entryPoints: [main],
    outdir: assets,
    format: 'esm',
    define: { ...common.define, __MONACO_WORKERS__: JSON.stringify(workerUrls) },
  });
  const { script, css } = outputsOf(r.metafile, main, assets, 'graphiql');
  writeHtml('graphiql', assets, { SCRIPT: script, STYLE: css ?? '' });
  return size(r.metafile) + size(w.metafile);
}

const PAGES = { dashboard, graphiql };

async function main() {
  const names = process.argv.slice(2);
  for (const n of names) if (!PAGES[n]) throw new Error(`build-web: unknown page ${n} (${Object.keys(PAGES).join(', ')})`);
  for (const name of names.length ? names : Object.keys(PAGES)) {
    const t0 = Date.now();
    const bytes = await PAGES[name]();
    process.stdout.write(`build-web: dist/web/${name} (${(bytes / 1024).toFixed(0)} KB, ${Date.now() - t0} ms)\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
