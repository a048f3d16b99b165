// The README's first command, as an author runs it: `scripts/serve.sh` builds the app, serves
// it, a simulation loads and plays, and Ctrl-C stops it cleanly. Also: dist/ as it leaves the
// build is host-ready (no development reload script).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launch, openPage, ready, dist, screenshot } from './harness.mjs';

const root = join(dist, '..');

/** Resolves with the URL serve.sh prints once it listens; rejects if it exits first. */
function started(child) {
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/Resilience Lab: (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`serve.sh exited with ${code} before serving:\n${out}`)));
  });
}

test('scripts/serve.sh serves the app, plays a simulation and stops on Ctrl-C', { timeout: 600000 }, async () => {
  const child = spawn('scripts/serve.sh', [], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((ok) => child.on('exit', (code, signal) => ok({ code, signal })));
  let browser;
  try {
    const base = await started(child);
    browser = await launch();
    const page = await openPage(browser);
    await page.goto(`${base}?sim=slow-server`);
    await ready(page);
    await page.click('[data-action="play"]');
    await page.waitForFunction(() => parseFloat(document.querySelector('.play-controls .clock').textContent) > 0);
    await screenshot(page, 'serve-slow-server');
    assert.deepEqual(page.problems(), []);
    // The same build under a sub-path, as a static host serves it.
    await page.goto(`${base}lab/?sim=retry-storm`);
    await ready(page);
    await page.waitForSelector('.sim[data-scenario="retry-storm"] [data-action="play"]:not([disabled])');
    assert.deepEqual(page.problems(), []);
  } finally {
    await browser?.close();
    child.kill('SIGINT');
  }
  assert.deepEqual(await exited, { code: 0, signal: null }, 'Ctrl-C stops serve.sh with status 0');
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  assert.doesNotMatch(html, /__TRUNK_ADDRESS__|new WebSocket/, 'dist/index.html carries no reload script');
});
