// Types of scripts/build.mjs (plain JavaScript: it runs before anything is compiled).

/** Every file under `dir` (relative paths, sorted), test files left out. */
export function sourceFiles(dir: string): string[];
/** One line per source and config file (path, size, mtime): equal fingerprints mean nothing changed. */
export function fingerprint(root: string): string;
/** Whether `outDir` was built from the sources of `root` as they are now. */
export function isFresh(root: string, outDir?: string): boolean;
/** Builds `outDir` from `root`/src (tsc, then the other files); throws with tsc's report on an error. */
export function build(root?: string, opts?: { outDir?: string; force?: boolean; log?: (line: string) => void }): void;
/** Builds dist/ when src/ changed since its last build. */
export function ensureBuilt(root?: string, opts?: { log?: (line: string) => void }): void;
