// demos/web/serve.mjs, the static server of the browser demos: isolation headers on every
// response, MIME types, directory handling, and no way out of the served roots (encoded dot
// segments, backslashes, NUL, symlinks pointing outside).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../demos/web/serve.mjs';

let server;
let scratch;

before(async () => {
  // An extra root with a file, a subfolder and a symlink to a file outside every root.
  scratch = await mkdtemp(join(tmpdir(), 'sg-serve-'));
  await mkdir(join(scratch, 'root', 'sub'), { recursive: true });
  await writeFile(join(scratch, 'root', 'sub', 'index.html'), '<p>sub</p>');
  await writeFile(join(scratch, 'root', 'a.wasm'), new Uint8Array([0, 97, 115, 109]));
  await writeFile(join(scratch, 'secret.txt'), 'outside');
  await symlink(join(scratch, 'secret.txt'), join(scratch, 'root', 'link.txt'));
  server = await startServer({ roots: [{ prefix: '/extra/', dir: join(scratch, 'root') }] });
});

after(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A raw request: the path goes on the wire as written (fetch would normalize '..'). */
function get(path, method = 'GET') {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

function isolated(r) {
  assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin');
  assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp');
}

test('startServer gives a loopback URL on a free port', () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.ok(server.port > 0);
});

test('pages, modules and wasm with their MIME types and isolation headers', async () => {
  const cases = [
    ['/', 'text/html; charset=utf-8'],
    ['/index.html', 'text/html; charset=utf-8'],
    ['/common/style.css', 'text/css; charset=utf-8'],
    ['/common/demo.js', 'text/javascript; charset=utf-8'],
    ['/serve.mjs', 'text/javascript; charset=utf-8'],
    ['/extra/a.wasm', 'application/wasm'],
    ['/extra/sub/', 'text/html; charset=utf-8'],
  ];
  for (const [path, type] of cases) {
    const r = await get(path);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers['content-type'], type, path);
    isolated(r);
  }
  assert.match((await get('/')).body, /href="digits\/"/, 'the index links the demos');
});

test('npm/dist is served under /npm/dist/ (the import map target)', async (t) => {
  const r = await get('/npm/dist/index.mjs');
  if (r.status === 404) {
    t.skip('npm/dist is not built');
    return;
  }
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.match(r.body, /export const init/);
  const w = await get('/npm/dist/simdgrad.wasm', 'HEAD');
  assert.equal(w.status, 200);
  assert.equal(w.headers['content-type'], 'application/wasm');
  assert.ok(Number(w.headers['content-length']) > 1000);
});

test('a folder without its slash redirects; HEAD has no body; other methods are refused', async () => {
  const r = await get('/extra/sub?x=1');
  assert.equal(r.status, 301);
  assert.equal(r.headers.location, '/extra/sub/?x=1');
  isolated(r);
  const h = await get('/index.html', 'HEAD');
  assert.equal(h.status, 200);
  assert.equal(h.body, '');
  const p = await get('/index.html', 'POST');
  assert.equal(p.status, 405);
  assert.equal(p.headers.allow, 'GET, HEAD');
  isolated(p);
});

test('no path reaches outside the roots', async () => {
  const attempts = [
    '/../README.md',
    '/../../README.md',
    '/%2e%2e/%2e%2e/README.md',
    '/..%2f..%2fREADME.md',
    '/%252e%252e/%252e%252e/README.md',
    '/npm/dist/../package.json',
    '/npm/dist/%2e%2e/package.json',
    '/npm/dist/..%2fpackage.json',
    '/npm/dist/..%5c..%5cREADME.md',
    '/..\\..\\README.md',
    '/index.html%00.png',
    '/extra/../serve.mjs/../../README.md',
    '/extra/%2e%2e/secret.txt',
    '/extra/link.txt',
    '/%E0%A4%A',
    '/no/such/file.js',
  ];
  for (const path of attempts) {
    const r = await get(path);
    assert.ok(r.status === 404 || r.status === 400, `${path}: expected 404, got ${r.status}`);
    assert.doesNotMatch(r.body, /outside|"name": "simdgrad"|# simdgrad/, path);
    isolated(r);
  }
});

test('close() stops the server', async () => {
  const s = await startServer();
  const { port } = s;
  await s.close();
  await assert.rejects(
    new Promise((resolve, reject) => request({ hostname: '127.0.0.1', port, path: '/' }, resolve).on('error', reject).end()),
    /ECONNREFUSED/,
  );
});
