// Types of scripts/build.mjs (plain JavaScript: it runs before anything is compiled).

/** Every file under `dir` (relative paths, sorted), test files left out. */
export function sourceFiles(dir: string): string[];
/** What esbuild starts from: `main` (src/main.ts) and each `src/<name>-worker.ts` under `<name>-worker`. */
export function entryPoints(root: string): Record<string, string>;
/** One line per source and config file (path, size, mtime): equal fingerprints mean nothing changed. */
export function fingerprint(root: string): string;
/** Whether `outDir` was built from the sources of `root` as they are now. */
export function isFresh(root: string, outDir?: string): boolean;
/** The npm package an input file of the bundle comes from (`node_modules/@scope/name/...`), else undefined. */
export function packageOf(input: string): string | undefined;
/** Packages left out of the bundle, loaded from node_modules at run time. */
export const EXTERNAL: readonly string[];
/** esbuild's metafile: which inputs went into which output, and what each output imports. */
export interface Metafile {
  outputs: Record<
    string,
    { inputs: Record<string, unknown>; imports: { path: string; kind: string; external?: boolean }[] }
  >;
}
/** Builds `outDir` from `root`/src/main.ts (an esbuild bundle split at dynamic imports); throws with esbuild's report on an error. */
export function build(
  root?: string,
  opts?: { outDir?: string; force?: boolean; log?: (line: string) => void },
): Metafile;
/** Builds dist/ when src/ changed since its last build, in a child process; throws BuildFailed (its message may be empty: the build said why). */
export function ensureBuilt(root?: string): void;
/** A failed build (what failed was printed by the build process). */
export class BuildFailed extends Error {}
