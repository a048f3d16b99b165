// The same seed gives the same run everywhere: every scenario and preset, run in the browser's
// wasm build, must produce exactly the metrics (bit for bit) and event counts of the native build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, openPage } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('wasm and native runs are byte-identical for every scenario and preset', async () => {
  const native = execFileSync('cargo', ['run', '--quiet', '--release', '--bin', 'resilience-lab', '--', 'bench', '--fingerprints'],
    { cwd: root, encoding: 'utf8' });
  const page = await openPage(browser);
  await page.goto(`${server.base}/?bench=fingerprints`);
  await page.waitForSelector('[data-bench="done"]', { timeout: 60000 });
  const wasm = await page.textContent('#bench-result');
  const lines = native.trim().split('\n');
  assert.ok(lines.length >= 25, `one line per scenario and preset: ${lines.length}`);
  assert.deepEqual(wasm.trim().split('\n'), lines);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
