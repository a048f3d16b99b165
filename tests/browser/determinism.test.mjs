// The same seed gives the same run everywhere: every scenario and preset, run in the browser's
// wasm build (each simulation's own module), must produce exactly the metrics (bit for bit) and event counts of the native build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, scenarioIds, cli } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('wasm and native runs are byte-identical for every scenario and preset, each in its own module', async () => {
  const native = cli(['bench', '--fingerprints']);
  const lines = native.trim().split('\n');
  assert.ok(lines.length >= 25, `one line per scenario and preset: ${lines.length}`);
  const page = await openPage(browser);
  const wasm = [];
  for (const id of scenarioIds()) {
    await page.goto(`${server.base}/?sim=${id}&bench=fingerprints`);
    await page.waitForSelector('[data-bench="done"]', { timeout: 60000 });
    const own = (await page.textContent('#bench-result')).trim().split('\n');
    assert.deepEqual(own, lines.filter((l) => l.startsWith(`${id} `)), `${id}'s module`);
    wasm.push(...own);
  }
  assert.deepEqual(wasm, lines, 'every native line was checked in a module');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
