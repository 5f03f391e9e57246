/**
 * Where firmware comes from when the user says so (`zigbee.ota_index`): an index in the format
 * zigbee-herdsman's OTA code reads (a JSON list of images, each with its `url`, `fileVersion`,
 * `manufacturerCode`, `imageType` and optional `sha512`, `modelId`, `manufacturerName`,
 * `minFileVersion`, `maxFileVersion`, `fileSize`...), read from a URL, a file, or a folder.
 *
 * zigbee-herdsman reads an image `url` that is not absolute relative to its own data folder, not to
 * the index, so the index is resolved here first: every image named relative to the index's
 * place (a folder copied from elsewhere) gets an absolute path or URL, and a local image the index
 * describes only by its file gets its manufacturer code, image type and version from the file's
 * own OTA header. A folder without an `index.json` is indexed from the OTA files it holds. The
 * resolved index is written to a file the backend is then pointed at. Nothing is fetched unless a
 * check or an update is asked for.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { compileTop } from '../catalog/compile-strict.ts';
import { arr, int, obj, opt, str } from '../catalog/schema.ts';
import type { Clock } from '../lib/clock.ts';

/** One image of an index (the fields the backends match on; others are kept as they are). */
export interface OtaIndexEntry {
  url: string;
  fileVersion: number;
  manufacturerCode: number;
  imageType: number;
  fileSize?: number;
  [k: string]: unknown;
}

export type IndexOutcome = { ok: true; file: string; entries: OtaIndexEntry[] } | { ok: false; message: string };

/** The OTA upgrade file identifier (ZCL 11.4.2.1). */
const FILE_IDENTIFIER = Buffer.from([0x1e, 0xf1, 0xee, 0x0b]);
/** The files of a folder without an index that are taken as OTA images. */
const IMAGE_FILE = /\.(ota|zigbee|bin|sbl-ota|ota\.signed)$/i;
/** The largest index read (the public zigbee-OTA index is about 1 MB). */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;
/** How long fetching an index may take. */
export const INDEX_FETCH_MS = 30_000;

const checkIndex = compileTop(
  arr(
    obj(
      {
        url: str({ pattern: /\S/, patternDoc: 'a path or URL' }),
        fileVersion: opt(int({ min: 0, max: 0xffffffff })),
        manufacturerCode: opt(int({ min: 0, max: 0xffff })),
        imageType: opt(int({ min: 0, max: 0xffff })),
      },
      { open: true },
    ),
    { maxItems: 100_000 },
  ),
  'index',
);

/** The header fields of an OTA file (ZCL 11.4.2), or undefined when it is not one. */
export function otaHeader(
  bytes: Buffer,
): { manufacturerCode: number; imageType: number; fileVersion: number; totalImageSize: number } | undefined {
  // Some vendors put a header of their own before the OTA file: it starts at the identifier.
  const at = bytes.indexOf(FILE_IDENTIFIER);
  if (at < 0 || bytes.length < at + 56) return undefined;
  return {
    manufacturerCode: bytes.readUInt16LE(at + 10),
    imageType: bytes.readUInt16LE(at + 12),
    fileVersion: bytes.readUInt32LE(at + 14),
    totalImageSize: bytes.readUInt32LE(at + 52),
  };
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Reads the index at `location` (a URL, an index file, or a folder), resolved; writes it to `out`. */
export async function resolveOtaIndex(location: string, out: string, clock: Clock): Promise<IndexOutcome> {
  try {
    const loaded = isUrl(location) ? await fetchIndex(location, clock) : readLocal(location);
    if (!loaded.ok) return loaded;
    const errors = checkIndex(loaded.list);
    if (errors.length > 0) return { ok: false, message: `${location}: ${errors.slice(0, 3).join('; ')}` };
    const entries: OtaIndexEntry[] = [];
    for (const [i, raw] of (loaded.list as Record<string, unknown>[]).entries()) {
      const entry = resolveEntry(raw, loaded.base);
      if (!entry.ok) return { ok: false, message: `${location}: ${i}.${entry.message}` };
      entries.push(entry.entry);
    }
    writeFileSync(out, `${JSON.stringify(entries)}\n`);
    return { ok: true, file: out, entries };
  } catch (err) {
    return { ok: false, message: `${location}: ${(err as Error).message}` };
  }
}

type Loaded = { ok: true; list: unknown; base: { url: string } | { dir: string } } | { ok: false; message: string };

function readLocal(location: string): Loaded {
  const path = resolve(location);
  if (!existsSync(path)) return { ok: false, message: `${location}: no such file or folder` };
  if (statSync(path).isDirectory()) {
    const index = join(path, 'index.json');
    if (existsSync(index)) return { ok: true, list: parseJson(readFileSync(index, 'utf8')), base: { dir: path } };
    // A folder of images and no index: each image is its own entry.
    const list = readdirSync(path)
      .filter((f) => IMAGE_FILE.test(f))
      .sort()
      .map((f) => ({ url: f }));
    return { ok: true, list, base: { dir: path } };
  }
  return { ok: true, list: parseJson(readFileSync(path, 'utf8')), base: { dir: dirname(path) } };
}

async function fetchIndex(url: string, clock: Clock): Promise<Loaded> {
  const abort = new AbortController();
  const cancel = clock.setTimer(INDEX_FETCH_MS, () => abort.abort());
  try {
    const res = await fetch(url, { signal: abort.signal, redirect: 'follow' });
    if (!res.ok) return { ok: false, message: `${url}: the server answered HTTP ${res.status}` };
    const text = await res.text();
    if (text.length > MAX_INDEX_BYTES) return { ok: false, message: `${url}: more than ${MAX_INDEX_BYTES} bytes` };
    return { ok: true, list: parseJson(text), base: { url: res.url || url } };
  } catch (err) {
    if (abort.signal.aborted) return { ok: false, message: `${url}: no complete answer within ${INDEX_FETCH_MS} ms` };
    const e = err as Error & { cause?: { code?: string } };
    return { ok: false, message: `${url}: ${e.cause?.code ?? e.message}` };
  } finally {
    cancel();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('not a JSON index (a list of images)');
  }
}

function resolveEntry(
  raw: Record<string, unknown>,
  base: { url: string } | { dir: string },
): { ok: true; entry: OtaIndexEntry } | { ok: false; message: string } {
  const given = String(raw.url);
  const url = isUrl(given)
    ? given
    : 'url' in base
      ? new URL(given, base.url).toString()
      : isAbsolute(given)
        ? given
        : join(base.dir, given);
  const entry = { ...raw, url } as OtaIndexEntry;
  const complete = [entry.fileVersion, entry.manufacturerCode, entry.imageType].every((v) => typeof v === 'number');
  if (complete) return { ok: true, entry };
  if (isUrl(url))
    return { ok: false, message: 'url: an image on the web needs fileVersion, manufacturerCode and imageType' };
  if (!existsSync(url)) return { ok: false, message: `url: ${url}: no such file` };
  const header = otaHeader(readFileSync(url));
  if (!header) return { ok: false, message: `url: ${url} is not an OTA file (no OTA header)` };
  return {
    ok: true,
    entry: {
      ...entry,
      fileVersion: entry.fileVersion ?? header.fileVersion,
      manufacturerCode: entry.manufacturerCode ?? header.manufacturerCode,
      imageType: entry.imageType ?? header.imageType,
      fileSize: entry.fileSize ?? header.totalImageSize,
    },
  };
}
