/**
 * The docs stay readable in an afternoon: word budgets per file (counted as `wc -w` counts),
 * decision records of at most 150 words, file header comments of at most 8 lines, and no
 * benchmark figures in source comments (figures live in bench/README.md's current table).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Every doc a newcomer reads, with its budget; a new file under docs/ needs a line here. */
const BUDGETS: Record<string, number> = {
  'README.md': 1_500,
  'CONTRIBUTING.md': 2_200,
  'docs/ARCHITECTURE.md': 4_000,
  'docs/DECISIONS.md': 5_500,
  'docs/OPERATIONS.md': 3_000,
  'docs/API.md': 3_500,
  'docs/CONFIGURATION.md': 2_500,
  'docs/SCALING.md': 1_500,
};
const DOCS_TOTAL = 24_000;
const BENCH_README = 4_000;
const RECORD_WORDS = 150;
const HEADER_LINES = 8;

/** Source files, relative to the root, under `dirs` (generated code and fixtures left out). */
function sources(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      if (['node_modules', 'dist', 'generated', 'fixtures'].includes(e.name)) continue;
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|js|mjs)$/.test(e.name)) out.push(rel);
    }
  };
  dirs.forEach(walk);
  return out;
}

/** The first comment of a file (after a shebang and 'use strict'), or null. */
function headerComment(text: string): string | null {
  const m = /^(?:#![^\n]*\n)?\s*(?:'use strict';\s*)?(\/\*[\s\S]*?\*\/|(?:\/\/[^\n]*\n)+)/.exec(text);
  return m ? m[1].trimEnd() : null;
}

/** The comment text of a source file, line by line (block and line comments). */
function commentLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let inBlock = false;
  text.split('\n').forEach((l, i) => {
    const t = l.trim();
    if (inBlock || t.startsWith('/*')) {
      out.push({ line: i + 1, text: t });
      inBlock = !t.includes('*/');
      return;
    }
    const at = l.indexOf('// ');
    if (at >= 0) out.push({ line: i + 1, text: l.slice(at) });
  });
  return out;
}

describe('docs budgets', () => {
  it.each(Object.entries(BUDGETS))('%s holds at most %i words', (file, budget) => {
    expect(words(read(file))).toBeLessThanOrEqual(budget);
  });

  it(`README, CONTRIBUTING and docs/ hold at most ${DOCS_TOTAL} words together, and every file under docs/ has a budget`, () => {
    const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    expect(docs.filter((d) => !(d in BUDGETS))).toEqual([]);
    const total = ['README.md', 'CONTRIBUTING.md', ...docs].reduce((n, f) => n + words(read(f)), 0);
    expect(total).toBeLessThanOrEqual(DOCS_TOTAL);
  });

  it(`bench/README.md holds at most ${BENCH_README} words`, () => {
    expect(words(read('bench/README.md'))).toBeLessThanOrEqual(BENCH_README);
  });

  it(`each decision record (a ### section of docs/DECISIONS.md) holds at most ${RECORD_WORDS} words`, () => {
    const records = read('docs/DECISIONS.md').split(/^(?=#{2,3} )/m).filter((s) => s.startsWith('### '));
    expect(records.length).toBeGreaterThan(0);
    const long = records.map((r) => ({ title: r.split('\n')[0], words: words(r) })).filter((r) => r.words > RECORD_WORDS);
    expect(long).toEqual([]);
  });
});

describe('source comments', () => {
  const files = [...sources(['src', 'test', 'tools', 'bench', 'scripts', 'web']), 'eslint.config.mjs', 'jest.config.js'];

  it(`every file's header comment is at most ${HEADER_LINES} lines (the docs hold the long form)`, () => {
    const long = files
      .map((f) => ({ file: f, lines: headerComment(read(f))?.split('\n').length ?? 0 }))
      .filter((h) => h.lines > HEADER_LINES);
    expect(long).toEqual([]);
  });

  it('no comment under src/, tools/, web/ or scripts/ records a benchmark figure (they live in bench/README.md)', () => {
    const figure = /\b\d[\d,.]*\s?(ms|µs|us|s|MB|KB|GB|x|%)(?!\w)/;
    const measured = /measur|benchmark|bench\/|faster|slower|\btook\b|\bcosts? about\b|\bwas\b.*\bnow\b|profil/i;
    const found = sources(['src', 'tools', 'web', 'scripts']).flatMap((f) =>
      commentLines(read(f))
        .filter((c) => figure.test(c.text) && measured.test(c.text))
        .map((c) => `${f}:${c.line}: ${c.text}`),
    );
    expect(found).toEqual([]);
  });
});
