/**
 * The docs name only what exists: every repository path, code name and environment variable
 * that README.md, CONTRIBUTING.md, docs/*.md and bench/README.md mention in `code` or link to.
 * A rename that forgets the docs fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCS = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Every file of the repository's own code and configuration, as one text to search names in. */
function sourceText(): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!['node_modules', 'dist', 'generated', 'fixtures', '.git', 'data'].includes(e.name)) walk(rel);
      } else if (/\.(ts|js|mjs|json|yml|yaml|prisma|sql|graphql|conf|sh)$|^Dockerfile$|^run$/.test(e.name)) {
        out.push(readFileSync(path.join(ROOT, rel), 'utf8'));
      }
    }
  };
  for (const d of ['src', 'test', 'bench', 'scripts', 'prisma', 'deploy', 'bin', '.ci']) walk(d);
  for (const f of ['package.json', 'docker-compose.yml', 'Dockerfile', 'schema.graphql', 'eslint.config.mjs', 'jest.config.js', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.jest.json']) {
    out.push(readFileSync(path.join(ROOT, f), 'utf8'));
  }
  return out.join('\n');
}

const SOURCE = sourceText();

/** Every file name of the repository (the docs name some files without their directory). */
const FILE_NAMES = new Set<string>();
(function names(dir: string) {
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', 'data'].includes(e.name)) continue;
    if (e.isDirectory()) names(path.join(dir, e.name));
    else FILE_NAMES.add(e.name);
  }
})('.');

/** True when `member` is named inside the declaration of class or interface `name`. */
function memberOf(name: string, member: string): boolean {
  const decl = new RegExp(`(class|interface) ${name}\\b[^{]*\\{`, 'g');
  for (const m of SOURCE.matchAll(decl)) {
    const body = SOURCE.slice(m.index, SOURCE.indexOf('\n}', m.index));
    if (new RegExp(`\\b${member}\\b`).test(body)) return true;
  }
  return false;
}
const TOP_DIRS = ['src', 'test', 'bench', 'scripts', 'prisma', 'docs', 'deploy', 'bin', '.ci'];

/** `code` spans and link targets of a Markdown text, fenced blocks left out. */
function mentions(md: string): { code: string[]; links: string[] } {
  const prose = md.replace(/^```[\s\S]*?^```/gm, '');
  return {
    code: [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]),
    links: [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]),
  };
}

function pathsIn(text: string): string[] {
  const out: string[] = [];
  for (const token of text.split(/[\s,()]+/)) {
    const p = token.replace(/^\.\//, '').replace(/[:.;]+$/, '').replace(/#.*$/, '');
    if (TOP_DIRS.some((d) => p === d || p.startsWith(`${d}/`)) && !/[*<>…{}]/.test(p)) out.push(p);
  }
  return out;
}

describe.each(DOCS)('%s', (doc) => {
  const md = readFileSync(path.join(ROOT, doc), 'utf8');
  const { code, links } = mentions(md);

  it('links only to files and anchors that exist', () => {
    const missing: string[] = [];
    for (const link of links) {
      if (/^(https?:|mailto:)/.test(link)) continue;
      const [file, anchor] = link.split('#');
      const target = file === '' ? doc : path.join(path.dirname(doc), file);
      if (!existsSync(path.join(ROOT, target))) {
        missing.push(link);
        continue;
      }
      if (anchor && statSync(path.join(ROOT, target)).isFile() && target.endsWith('.md')) {
        const slugs = [...readFileSync(path.join(ROOT, target), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) =>
          m[1].toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'),
        );
        if (!slugs.includes(anchor)) missing.push(link);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names only repository paths that exist', () => {
    const missing = code.flatMap((c) => pathsIn(c)).filter((p) => !existsSync(path.join(ROOT, p)));
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names only code that exists (classes, Class.method, function(), identifiers, file names)', () => {
    const word = (w: string) => new RegExp(`\\b${w}\\b`).test(SOURCE);
    const GLOBALS = new Set(['JSON', 'Math', 'Date', 'Promise', 'Object', 'Array', 'Number', 'String', 'Buffer', 'Error']);
    const missing: string[] = [];
    for (const c of code) {
      let m = /^([A-Z][A-Za-z0-9]+)\.([a-z][A-Za-z0-9]+)(?:\(\))?$/.exec(c);
      if (m) {
        if (!GLOBALS.has(m[1]) && !memberOf(m[1], m[2])) missing.push(c);
        continue;
      }
      m = /^([a-z][A-Za-z0-9]+)\(\)$/.exec(c) ?? /^([a-z]+[A-Z][A-Za-z0-9]*)$/.exec(c) ?? /^([A-Z][a-z]+[A-Z][A-Za-z0-9]*)$/.exec(c);
      if (m) {
        if (!word(m[1])) missing.push(c);
        continue;
      }
      if (/^[\w.-]+\.(ts|js|mjs|sql|prisma|yml|conf)$/.test(c) && !FILE_NAMES.has(c)) missing.push(c);
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names only environment variables something reads', () => {
    const vars = code.flatMap((c) => [...c.matchAll(/\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b/g)].map((m) => m[1]));
    const missing = [...new Set(vars)].filter((v) => !SOURCE.includes(v));
    expect(missing).toEqual([]);
  });

  it('points nowhere outside the repository (a clone has no ../shared)', () => {
    expect(md).not.toMatch(/\.\.\/shared/);
  });
});
