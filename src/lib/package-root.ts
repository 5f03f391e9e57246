/**
 * Where this installation's files are: the folder holding its package.json. Modules that read
 * files shipped beside the code (sounds, fixtures, the console, the eSpeak worker) resolve them
 * from here, never from their own module's URL: under tsx a module is its own file in src/, but in
 * the bundle in dist/ it is part of a chunk whose folder says nothing about where it came from.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `start` that holds a package.json (`start` itself when none does). */
export function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return start;
    dir = up;
  }
  return dir;
}

/** The folder of this package: the same from src/lib/ under tsx and from a chunk of dist/. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside this package, from its parts (`fromPackageRoot('assets', 'sounds')`). */
export function fromPackageRoot(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}
