// A small, dependency-free static server for the browser demos (and the browser tests).
//
//   node demos/web/serve.mjs            → http://127.0.0.1:8080/ (PORT overrides the port)
//   import { startServer } from './serve.mjs'; const { url, close } = await startServer();
//
// Every response carries COOP same-origin + COEP require-corp, so pages are cross-origin isolated
// and SharedArrayBuffer (hence the threaded wasm build) is available. Two roots are served (plus
// any given to startServer({ roots })):
//   /            → demos/web   (the pages, their shared modules and the prepared data in demos/web/data)
//   /npm/dist/   → npm/dist    (the built package; pages import it through an import map)
// Requests are resolved against those roots after decoding and normalizing, and the real path
// (symlinks followed) must stay inside the root's real path, so no URL reaches any other file.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');

/** URL prefix → directory; the longest matching prefix wins (startServer may add more). */
const DEFAULT_ROOTS = [
  { prefix: '/npm/dist/', dir: join(REPO, 'npm', 'dist') },
  // The tokenizer library sg.tokenizers loads (the fine-tuning demo maps '@huggingface/tokenizers' here).
  { prefix: '/npm/node_modules/@huggingface/tokenizers/', dir: join(REPO, 'npm', 'node_modules', '@huggingface', 'tokenizers') },
  { prefix: '/', dir: HERE },
];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.bin': 'application/octet-stream',
  '.safetensors': 'application/octet-stream',
  '.ts': 'text/plain; charset=utf-8',
};

/** Headers on every response, errors included (a COEP page refuses any subresource without them). */
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

function send(res, status, body, headers = {}) {
  res.writeHead(status, { ...ISOLATION, 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}

/** Real path of a directory, cached (roots do not move while the server runs). */
const realRoots = new Map();
async function realRoot(dir) {
  if (!realRoots.has(dir)) realRoots.set(dir, await realpath(dir).catch(() => null));
  return realRoots.get(dir);
}

const inside = (file, root) => file === root || file.startsWith(root + sep);

/** Maps a URL pathname to a file inside one of the roots, or returns null (→ 404). */
async function locate(roots, pathname) {
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const root = roots.find((r) => decoded.startsWith(r.prefix) || decoded + '/' === r.prefix);
  if (!root) return null;
  const rest = decoded.slice(Math.min(root.prefix.length, decoded.length));
  const base = await realRoot(root.dir);
  if (!base) return null;
  // resolve() normalizes '..' segments; the real-path check below also catches symlinks.
  const candidate = resolve(root.dir, '.' + sep + rest);
  if (!inside(candidate, resolve(root.dir))) return null;
  let real;
  try {
    real = await realpath(candidate);
  } catch {
    return null;
  }
  if (!inside(real, base)) return null;
  const info = await stat(real);
  if (info.isDirectory()) {
    return { dir: true, real };
  }
  return info.isFile() ? { dir: false, real, size: info.size } : null;
}

async function handle(roots, req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
    return;
  }
  let url;
  try {
    url = new URL(req.url ?? '/', 'http://localhost');
  } catch {
    send(res, 400, 'bad request\n');
    return;
  }
  let found = await locate(roots, url.pathname);
  if (found?.dir) {
    // /digits → /digits/ so the page's relative URLs resolve inside its folder.
    if (!url.pathname.endsWith('/')) {
      send(res, 301, '', { Location: url.pathname + '/' + url.search });
      return;
    }
    found = await locate(roots, url.pathname + 'index.html');
  }
  if (!found || found.dir) {
    send(res, 404, `not found: ${url.pathname}\n`);
    return;
  }
  const type = MIME[extname(found.real).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(200, { ...ISOLATION, 'Content-Type': type, 'Content-Length': found.size });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(found.real).on('error', () => res.destroy()).pipe(res);
}

/**
 * Starts the server. port 0 picks a free port. Resolves to { url, port, close() } where url ends
 * with '/' (e.g. 'http://127.0.0.1:8080/') and close() resolves once the server has stopped.
 * roots: extra { prefix, dir } pairs served besides the two defaults (the browser tests serve
 * their fixture pages and a Vite build this way); prefix starts and ends with '/', and on equal
 * prefixes an extra root wins over a default one.
 */
export async function startServer({ port = 0, host = '127.0.0.1', roots = [] } = {}) {
  for (const r of roots) {
    if (typeof r?.prefix !== 'string' || !r.prefix.startsWith('/') || !r.prefix.endsWith('/') || typeof r.dir !== 'string') {
      throw new Error(`startServer: roots entries must be { prefix: '/…/', dir: string }, got ${JSON.stringify(r)}`);
    }
  }
  // Longest prefix first; the sort is stable, so extra roots stay ahead of equal default ones.
  const all = [...roots.map((r) => ({ prefix: r.prefix, dir: resolve(r.dir) })), ...DEFAULT_ROOTS]
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const sockets = new Set();
  const server = createServer((req, res) => {
    handle(all, req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, `internal error: ${e?.message ?? e}\n`);
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      ok();
    });
  });
  const actual = server.address().port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${actual}/`,
    port: actual,
    close: () =>
      new Promise((ok) => {
        // Keep-alive sockets would hold close() open; end them.
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

// Run directly: serve until interrupted.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const port = process.env.PORT ? Number(process.env.PORT) : 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: PORT must be an integer 0..65535, got ${JSON.stringify(process.env.PORT)}`);
    process.exit(1);
  }
  const { url, close } = await startServer({ port });
  console.log(`simdgrad demos: ${url}  (digits/, playground/, transformer/; Ctrl-C stops)`);
  const stop = () => close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
