/**
 * Loads matter.js one package at a time, in the order they depend on each other, before the bridge's
 * own modules import it, where matter.js comes from node_modules: in the source tree (`npm run dev`,
 * tests that run src/ through tsx). The gateway as users run it (dist/) has matter.js bundled into
 * the bridge's chunks and does not load this file (index.ts): there the bridge's imports load only
 * the parts of matter.js it uses, from a few chunks, and importing the packages by name would load
 * them a second time, whole, from node_modules.
 *
 * In the source tree: matter.js is about 1,460 modules; when one `import()` reaches all of
 * them, node's module loader reads and compiles the whole graph before it runs any of it, and the
 * native memory that takes (about 15 MB at its peak) stays with the process after it is freed: the
 * C library keeps it for the process rather than giving it back. Loaded package by package, the
 * peak is one package's, and the gateway keeps about 15 MB less for as long as it runs
 * (docs/benchmarks.md, "The Matter bridge's memory").
 */

/**
 * matter.js's packages, each after the ones it imports (their package.json files say which). They
 * are imported by name, as process-config.ts imports @matter/nodejs: npm installs them beside
 * @matter/main, whose dependencies they are. Not through @matter/main's own entry points: each of
 * those loads its platform (@matter/nodejs) first, which imports nearly all the others at once.
 */
export const MATTER_PACKAGES = [
  '@matter/general',
  '@matter/model',
  '@matter/types',
  '@matter/protocol',
  '@matter/node',
  '@matter/nodejs',
  '@matter/main',
] as const;

/** Imports matter.js's packages one after another (a package already loaded costs nothing). */
export async function loadMatterJs(): Promise<void> {
  for (const name of MATTER_PACKAGES) await import(name);
}
