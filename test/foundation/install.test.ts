import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';

// What `npm install` prints on a fresh machine follows from the lock: a package whose `engines`
// leaves out this Node prints EBADENGINE, and a package with an install script that
// `allowScripts` does not decide makes npm ask the user to approve it. Neither may come from a
// dependency choice of this project (the first `npm start` of a new user shows them).
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string }; hasInstallScript?: boolean }>;
};

type Version = [number, number, number];

function parse(v: string): Version {
  const [a = 0, b = 0, c = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((p) => (p === 'x' || p === '*' ? 0 : Number.parseInt(p, 10) || 0));
  return [a, b, c];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}

/** Whether `version` meets one comparator of an engines range (the forms the lock uses). */
function meets(version: Version, comparator: string): boolean {
  if (comparator === '*' || comparator === '') return true;
  const m = /^(>=|<=|>|<|\^|~|=)?\s*v?([\dx*.]+)$/.exec(comparator);
  if (!m) throw new Error(`an engines comparator this test cannot read: ${comparator}`);
  const op = m[1] ?? '=';
  const raw = m[2] as string;
  const v = parse(raw);
  const wildcard = raw.split('.').length < 3 || /[x*]/.test(raw);
  switch (op) {
    case '>=':
      return compare(version, v) >= 0;
    case '>':
      return compare(version, v) > 0;
    case '<=':
      return wildcard ? version[0] <= v[0] : compare(version, v) <= 0;
    case '<':
      return compare(version, v) < 0;
    case '^':
      return version[0] === v[0] && compare(version, v) >= 0;
    case '~':
      return version[0] === v[0] && version[1] === v[1] && compare(version, v) >= 0;
    default:
      return wildcard ? version[0] === v[0] : compare(version, v) === 0;
  }
}

/** Whether `version` is in an engines range: alternatives by `||`, each all of its comparators. */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .every((c) => meets(version, c)),
  );
}

test('the range reader reads the forms of the lock as npm does', () => {
  const v20 = parse('20.20.2');
  assert.equal(satisfies(v20, '>=22'), false);
  assert.equal(satisfies(v20, '>= 18'), true);
  assert.equal(satisfies(v20, '^20.19.0 || >=22.12.0'), true);
  assert.equal(satisfies(v20, '^22.2.0 || ^24'), false);
  assert.equal(satisfies(v20, '20.x || 22.x'), true);
  assert.equal(satisfies(v20, '>=0.8.x'), true);
  assert.equal(satisfies(v20, '<=26.2'), true);
});

test('every locked package accepts the Node that installs it: npm prints no EBADENGINE', () => {
  const version = parse(process.version);
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.engines?.node && !satisfies(version, p.engines.node))
    .map(([path, p]) => `${path} wants node ${p.engines?.node}`);
  assert.deepEqual(refused, []);
});

test('allowScripts decides every locked package with an install script: npm asks the user nothing', () => {
  const undecided = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path]) => path.replace(/^.*node_modules\//, ''))
    .filter((name) => typeof pkg.allowScripts[name] !== 'boolean');
  assert.deepEqual(undecided, []);
});
