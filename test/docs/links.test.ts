import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

// A clone holds only this repository: a link in the README or docs/ that leaves it (the design
// notes and the spec once sat beside it, in ../shared) is dead for every reader.
const root = resolve(import.meta.dirname, '../..');

function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) out.push(path);
    }
  };
  walk('docs');
  if (existsSync(join(root, 'examples'))) walk('examples');
  return out;
}

/** The anchors GitHub makes of a Markdown file's headings. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    anchors.add(slug);
  }
  return anchors;
}

/** Every link target of a Markdown text, code blocks and inline code left out. */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
}

test('every link of the README and docs/ points to a file or heading inside the repository', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const link of linksOf(text)) {
      if (/^(https?:|mailto:)/.test(link)) continue;
      checked++;
      const [pathPart = '', anchor] = link.split('#');
      const target = pathPart === '' ? join(root, file) : resolve(root, dirname(file), decodeURI(pathPart));
      const inside = relative(root, target);
      if (inside.startsWith('..')) {
        broken.push(`${file}: ${link} leaves the repository`);
        continue;
      }
      if (!existsSync(target)) {
        broken.push(`${file}: ${link} does not exist`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
        broken.push(`${file}: ${link} names no heading of ${inside}`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} links found: the link pattern no longer matches the docs`);
  assert.deepEqual(broken, []);
});

test('the README and docs/ name no file outside the repository as something to read', () => {
  const outside: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    // The spec sat beside the repository as spec/gateway-open-api.md: a reader of a clone has no such file.
    for (const m of text.matchAll(/\.\.\/shared\/[\w./-]+|\/work\/[\w./-]+|\bspec\/gateway-open-api\.md/g))
      outside.push(`${file}: ${m[0]}`);
  }
  assert.deepEqual(outside, []);
});

/** `a/{b,c}/d` as `a/b/d` and `a/c/d`. */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*)\}/.exec(path);
  if (!m) return [path];
  const [whole, inner = ''] = m;
  return inner
    .split(',')
    .flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + whole.length)));
}

/** Whether a path of the repository exists; a `*` in a name matches any characters of that name. */
function existsInRepo(path: string): boolean {
  let candidates = [''];
  for (const name of path.split('/').filter((n) => n !== '')) {
    if (!name.includes('*')) {
      candidates = candidates.map((c) => join(c, name)).filter((c) => existsSync(join(root, c)));
      continue;
    }
    const pattern = new RegExp(`^${name.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    candidates = candidates.flatMap((c) => {
      const dir = join(root, c);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
      return readdirSync(dir)
        .filter((n) => pattern.test(n))
        .map((n) => join(c, n));
    });
  }
  return candidates.length > 0;
}

/**
 * The repository paths (`src/...`, `test/...`, `scripts/...`, `bench/...`, `docs/...`) a Markdown
 * text names in its inline code or its prose (code blocks left out: their commands are run by
 * tests of their own).
 */
function namedPaths(text: string): string[] {
  const outsideBlocks = text.replace(/```[\s\S]*?```/g, '');
  return [
    ...outsideBlocks.matchAll(
      /(?<![\w./@:-])(?:src|test|scripts|bench|docs)\/[^\s`'"()<>\]|*]*(?:\*[^\s`'"()<>\]|]*)*/g,
    ),
  ].map((m) => m[0].replace(/#.*$/, '').replace(/[.,;:]+$/, ''));
}

test('every file or folder of the repository the README and docs/ name exists', () => {
  const missing: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    for (const path of namedPaths(readFileSync(join(root, file), 'utf8'))) {
      for (const one of expandBraces(path)) {
        checked++;
        if (!existsInRepo(one)) missing.push(`${file}: ${one}`);
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} paths found: the pattern no longer matches the docs`);
  assert.deepEqual(missing, []);
});
