/**
 * The layers of docs/architecture.md, read off the imports of src/: each folder imports only the
 * folders below it, and no two folders import each other (directly or through others).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

const SRC = join(ROOT, 'src');

/** The folder a file belongs to: `drivers/<name>`, `http/<name>`, `integrations/<name>`, or the top folder. */
function nodeOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  if (parts.length === 1) return (parts[0] as string).replace(/\.[mc]?ts$/, '');
  if (['drivers', 'http', 'integrations'].includes(parts[0] as string) && parts.length > 2)
    return `${parts[0]}/${parts[1]}`;
  return parts[0] as string;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'fixtures' ? [] : files(p);
    return /\.(ts|mjs)$/.test(f) ? [p] : [];
  });
}

/** Folder -> the folders it imports (static and dynamic imports of relative paths). */
function graph(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of files(SRC)) {
    const from = nodeOf(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
      const target = normalize(join(dirname(file), m[1] as string));
      if (!target.startsWith(SRC)) continue;
      const to = nodeOf(target);
      if (to === from) continue;
      const set = edges.get(from) ?? new Set();
      set.add(to);
      edges.set(from, set);
    }
  }
  return edges;
}

const edges = graph();
const importsOf = (node: string) => [...(edges.get(node) ?? [])].sort();
const nodes = (prefix: string) => [...edges.keys()].filter((n) => n === prefix || n.startsWith(`${prefix}/`));

describe('the layers of src/', () => {
  it('lib imports nothing of the gateway', () => {
    assert.deepEqual(importsOf('lib'), []);
  });

  it('the catalog imports only lib; the Zigbee vocabulary only the core (its contract), the catalog and lib; the store only lib', () => {
    assert.deepEqual(importsOf('catalog'), ['lib']);
    assert.ok(
      importsOf('zigbee').every((n) => ['core', 'catalog', 'lib'].includes(n)),
      importsOf('zigbee').join(),
    );
    assert.ok(
      importsOf('store').every((n) => n === 'lib'),
      importsOf('store').join(),
    );
  });

  it('the core imports nothing of drivers, HTTP, integrations or the composition root', () => {
    for (const n of importsOf('core')) assert.ok(['catalog', 'lib', 'store'].includes(n), `core imports ${n}`);
  });

  it('the automations know the core, the catalog, the store, the settings and lib: nothing of drivers, HTTP or integrations', () => {
    const imports = importsOf('automations');
    assert.ok(imports.includes('core'), imports.join());
    for (const n of imports)
      assert.ok(['core', 'catalog', 'lib', 'store', 'settings'].includes(n), `automations imports ${n}`);
  });

  it('the history knows the core, the catalog, the store, the settings and lib: nothing of drivers, HTTP, integrations or the automations', () => {
    const imports = importsOf('history');
    assert.ok(imports.includes('core'), imports.join());
    for (const n of imports)
      assert.ok(['core', 'catalog', 'lib', 'store', 'settings'].includes(n), `history imports ${n}`);
  });

  it('HTTP knows no driver, and drivers know no HTTP', () => {
    for (const h of nodes('http'))
      for (const n of importsOf(h)) assert.ok(!n.startsWith('drivers') && n !== 'gateway', `${h} imports ${n}`);
    for (const d of nodes('drivers'))
      for (const n of importsOf(d)) assert.ok(!n.startsWith('http') && n !== 'gateway', `${d} imports ${n}`);
  });

  it('an integration imports the core and lib (the catalog, settings and store too), never another integration, a driver, HTTP or the composition root', () => {
    const own = nodes('integrations').filter((n) => n !== 'integrations');
    assert.ok(own.length >= 5, own.join());
    for (const i of own)
      for (const n of importsOf(i))
        assert.ok(['core', 'catalog', 'lib', 'settings', 'store'].includes(n), `${i} imports ${n}`);
    // The table loads each of them (a large one may be a folder of its own beside them, as the
    // automations are); nothing else of the gateway but the core's contract and the settings.
    for (const n of importsOf('integrations'))
      assert.ok(
        n.startsWith('integrations/') || ['core', 'settings', 'automations', 'history'].includes(n),
        `integrations/load.ts imports ${n}`,
      );
  });

  it('the composition root is plain wiring: no timer, queue or store access of its own, and short', () => {
    for (const name of ['gateway.ts', 'core-services.ts']) {
      const text = readFileSync(join(SRC, name), 'utf8');
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      const held: [RegExp, string][] = [
        [/\b(setTimeout|setInterval|setImmediate|setTimer|clearTimeout)\b/, 'a timer'],
        [/\.then\(|Promise\.resolve\(|new Promise\b|\bqueue|\bturns?\b/i, 'a queue'],
        [/\.(prepare|exec|pragma|transaction)\(|\bkv\.(get|set)\(/, 'store access'],
        [/^\s*(export\s+)?class\s/m, 'a class'],
      ];
      for (const [pattern, what] of held) assert.ok(!pattern.test(code), `src/${name} holds ${what}: ${pattern}`);
      const lines = text.split('\n').length;
      assert.ok(lines <= 250, `src/${name} has ${lines} lines: more than wiring`);
    }
  });

  it('the Zigbee2MQTT driver does not import the simulator (the simulator may use the driver)', () => {
    assert.ok(!importsOf('drivers/zigbee2mqtt').includes('drivers/zigbee-sim'));
  });

  it('has no cycle between folders', () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const path: string[] = [];
    const visit = (n: string) => {
      if (done.has(n)) return;
      if (visiting.has(n)) assert.fail(`cycle: ${[...path.slice(path.indexOf(n)), n].join(' -> ')}`);
      visiting.add(n);
      path.push(n);
      for (const m of edges.get(n) ?? []) visit(m);
      path.pop();
      visiting.delete(n);
      done.add(n);
    };
    for (const n of edges.keys()) visit(n);
    assert.ok(edges.size > 10);
  });
});
