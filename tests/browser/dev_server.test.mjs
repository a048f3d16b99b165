// Issue 46, item 2: the development loop a Leptos developer expects. `scripts/dev.sh` runs
// `trunk serve` (Trunk.toml) with the web build's flags: every simulation in one module, opened
// by `?sim=`, styled, with Trunk's reload script in the page, built into target/dev and never
// into dist/ (the site, which can be copied to a host at any time).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dist, launch, openPage, scenarios, screenshot } from './harness.mjs';

/** A port nothing listens on now. */
const freePort = () => new Promise((resolve, reject) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  }).on('error', reject);
});

/** The modification time of every file dist/ has at its top, by name. */
async function distTimes() {
  const names = ['index.html', 'embed.js'];
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, (await stat(join(dist, n))).mtimeMs])));
}

let server, base, output = '', browser, before_;

/**
 * Waits until the server answers with the built page (Trunk answers before its first build is
 * done). A cold build compiles every simulation for wasm: minutes on 2 cores, so the wait is
 * on the page being there, polled, with no limit but the server's exit.
 */
async function builtPage() {
  for (;;) {
    if (server.exitCode !== null) throw new Error(`scripts/dev.sh exited with ${server.exitCode}:\n${output.slice(-3000)}`);
    const html = await fetch(`${base}/`).then((r) => (r.ok ? r.text() : ''), () => '');
    if (html.includes('resilience-lab-web')) return html;
    await sleep(500);
  }
}

before(async () => {
  before_ = await distTimes();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(join(dirname(dist), 'scripts', 'dev.sh'), [], { env: { ...process.env, PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (d) => { output += d; });
  server.stderr.on('data', (d) => { output += d; });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  // The whole process group: the script, Trunk and any cargo it started.
  if (server && server.exitCode === null) process.kill(-server.pid, 'SIGTERM');
});

test('scripts/dev.sh serves every simulation by ?sim= from target/dev, with reload, never writing dist/', { timeout: 40 * 60 * 1000 }, async () => {
  const html = await builtPage();
  assert.match(html, /\.well-known\/trunk\/ws/, "Trunk's reload script is in the page");
  const page = await openPage(browser, { width: 412, height: 900 });
  for (const s of scenarios()) {
    await page.goto(`${base}/?sim=${s.id}`);
    await page.waitForSelector('main h1', { timeout: 60000 });
    assert.equal((await page.textContent('main h1')).trim(), s.title, `?sim=${s.id}`);
    // Styled by the development sheet (the site's rules set --radius).
    const radius = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--radius').trim());
    assert.equal(radius, '8px', `${s.id}: the style sheet is applied`);
  }
  await screenshot(page, 'dev-server-at-least-once-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  assert.ok((await stat(join(dirname(dist), 'target', 'dev', 'index.html'))).isFile(), 'the build is in target/dev');
  assert.deepEqual(await distTimes(), before_, 'dist/ is untouched');
});
