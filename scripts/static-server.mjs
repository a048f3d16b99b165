// A static file server for the built app, as any static host serves it: dist/ at / and at the
// sub-path /lab/, on 127.0.0.1 only. `scripts/serve.sh` runs it; the browser tests import it.
//
//     node scripts/static-server.mjs <dir> <port>     (port 0: any free port; the first line says which)
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png',
};

/**
 * Serves `dir` at / and at /lab/, plus test-only host pages from `extra` (path -> html).
 * `isolated` adds the cross-origin isolation headers, which give performance.now() its full
 * resolution (the benchmark wants it; the tests serve as an ordinary static host does).
 * `gzip` compresses every response at level 9 for a client that accepts it, as a static host
 * that precompresses does (the benchmark's bytes over the wire). Resolves to { base, port, close }.
 */
export async function serveDir(dir, { extra = {}, isolated = false, gzip = false, port = 0 } = {}) {
  const root = resolve(dir);
  const isolation = isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {};
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/favicon.ico') { res.writeHead(204).end(); return; } // host pages have none
    if (extra[url.pathname]) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(extra[url.pathname]);
      return;
    }
    let path = url.pathname.startsWith('/lab/') ? url.pathname.slice(4) : url.pathname;
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    try {
      let body = await readFile(file);
      const headers = { 'content-type': types[extname(file)] || 'application/octet-stream', ...isolation };
      if (gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        body = gzipSync(body, { level: 9 });
        headers['content-encoding'] = 'gzip';
      }
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok, fail) => { server.once('error', fail); server.listen(port, '127.0.0.1', ok); });
  const bound = server.address().port;
  return { base: `http://127.0.0.1:${bound}`, port: bound, close: () => new Promise((ok) => server.close(ok)) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, port] = process.argv.slice(2);
  if (!dir || !/^\d+$/.test(port ?? '')) {
    console.error('usage: node scripts/static-server.mjs <dir> <port>');
    process.exit(2);
  }
  try {
    const { base, close } = await serveDir(dir, { port: Number(port) });
    console.log(`Resilience Lab: ${base}/`);
    const stop = async () => { await close(); process.exit(0); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (e) {
    console.error(`error: cannot serve on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  }
}
