/**
 * The console's page at `/`: the static files esbuild built into console/dist (scripts/
 * build-console.mjs), served from memory with their precompressed brotli or gzip twin when the
 * browser takes it. Hashed asset names are cached for good; the page itself is checked each
 * time, so a rebuilt console shows at the next load. When the console was not built, `/` says
 * so and how to build it. Nothing is fetched from elsewhere at run time.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromPackageRoot } from '../../lib/package-root.ts';

interface Asset {
  type: string;
  raw: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

/**
 * The page may load only its own files and talk only to its own gateway; it frames the pages of
 * add-ons' dashboard cards (http and https, as the add-ons register them).
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  'frame-src http: https:; ' +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** The folder of the built console: `console/dist` of the package this module belongs to. */
export function defaultConsoleDir(): string {
  return fromPackageRoot('console', 'dist');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>opencube console not built</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5">
<h1>The console is not built</h1>
<p>This gateway runs, and its Open API answers under <code>/open-api/</code>, but the files of its web console
are missing. <code>npm start</code> builds them; to build them by hand, run this in the gateway's folder and reload
this page:</p>
<pre style="background:#eee;padding:.75rem">npm run build:console</pre>
</body></html>`;

function load(dir: string): Map<string, Asset> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, Asset>();
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = sub ? `${sub}/${name}` : name;
      if (statSync(join(dir, rel)).isDirectory()) {
        walk(rel);
        continue;
      }
      const ext = /\.[a-z0-9]+$/.exec(name)?.[0] ?? '';
      const type = TYPES[ext];
      if (!type) continue;
      const raw = readFileSync(join(dir, rel));
      const gz = join(dir, `${rel}.gz`);
      const br = join(dir, `${rel}.br`);
      files.set(`/${rel}`, {
        type,
        raw,
        ...(existsSync(gz) ? { gzip: readFileSync(gz) } : {}),
        ...(existsSync(br) ? { br: readFileSync(br) } : {}),
      });
    }
  };
  walk('');
  return files;
}

function send(req: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string): FastifyReply {
  const accept = String(req.headers['accept-encoding'] ?? '');
  reply.header('vary', 'accept-encoding').header('cache-control', cache).type(asset.type);
  reply.header('x-content-type-options', 'nosniff');
  if (asset.br && /\bbr\b/.test(accept)) return reply.header('content-encoding', 'br').send(asset.br);
  if (asset.gzip && /\bgzip\b/.test(accept)) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.raw);
}

/** The plugin serving the console's page; register it with `{ prefix: '' }`. */
export function consoleStaticPlugin(dir: string = defaultConsoleDir()) {
  return async (app: FastifyInstance) => {
    let files: Map<string, Asset> | undefined;
    let builtAt = 0;
    // Reloaded when index.html changes (a rebuild while the gateway runs).
    const current = () => {
      let mtime = 0;
      try {
        mtime = statSync(join(dir, 'index.html')).mtimeMs;
      } catch {
        files = undefined;
        return undefined;
      }
      if (!files || mtime !== builtAt) {
        files = load(dir);
        builtAt = mtime;
      }
      return files;
    };
    app.get('/', async (req, reply) => {
      const assets = current();
      const index = assets?.get('/index.html');
      if (!index)
        return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
      reply.header('content-security-policy', CSP).header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'same-origin');
      return send(req, reply, index, 'no-cache');
    });
    app.get('/assets/:file', async (req, reply) => {
      const asset = current()?.get(`/assets/${(req.params as { file: string }).file}`);
      if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
      return send(req, reply, asset, 'public, max-age=31536000, immutable');
    });
  };
}
