// Issue 46, item 8: dist/ holds, beside each file a page downloads, its .gz and .br for a host
// that sends precompressed files (README, "Hosting"), each the same bytes once decompressed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { dist } from './harness.mjs';

test('every file of dist/ has a .gz and a .br beside it that decompress to it', async () => {
  const names = await readdir(dist, { recursive: true });
  const files = names.filter((n) => /\.(html|js|wasm|css|svg)$/.test(n));
  assert.ok(files.some((n) => n.endsWith('.wasm')) && files.includes('index.html') && files.includes('embed.js'), `${files}`);
  for (const name of files) {
    const body = await readFile(join(dist, name));
    const gz = await readFile(join(dist, `${name}.gz`));
    const br = await readFile(join(dist, `${name}.br`));
    assert.ok(gunzipSync(gz).equals(body), `${name}.gz`);
    assert.ok(brotliDecompressSync(br).equals(body), `${name}.br`);
    if (body.length > 1024) assert.ok(br.length < gz.length && gz.length < body.length, `${name}: ${body.length} > ${gz.length} > ${br.length}`);
  }
  // Nothing else was compressed: no .gz.gz, no compressed file without its original.
  for (const name of names.filter((n) => /\.(gz|br)$/.test(n))) assert.ok(files.includes(name.replace(/\.(gz|br)$/, '')), name);
});
