// The browser half of `scripts/bench.sh`: measures the built app (dist/) in headless Chromium
// and prints one table with the native figures (from the JSON file given as argv[2]) and the
// bundle floor (the built examples/bundle_floor.rs, a folder given as argv[3]).
import { readFile, readdir } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { serve, launch, openPage, dist } from '../tests/browser/harness.mjs';

const native = JSON.parse(await readFile(process.argv[2], 'utf8'));
const server = await serve({}, { isolated: true });
const browser = await launch();
const rows = [];
const row = (figure, measured, goal, ok) => rows.push({ figure, measured, goal, ok: ok === undefined ? '' : ok ? 'yes' : 'NO' });
const fmt = (n, d = 0) => Number(n).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const pct = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]; };

try {
  // Core speed, native and in wasm.
  const page = await openPage(browser);
  await page.goto(`${server.base}/?bench=core`);
  await page.waitForSelector('[data-bench="done"]', { timeout: 120000 });
  const wasm = JSON.parse(await page.textContent('#bench-result'));
  await page.context().close();
  row('slow-server 600 s, native: simulated requests/s', fmt(native.requests_per_s), '>= 4,000,000', native.requests_per_s >= 4e6);
  row('slow-server 600 s, wasm: simulated requests/s', fmt(wasm.requests_per_s), `>= ${fmt(native.requests_per_s / 2)} (half native)`, wasm.requests_per_s >= native.requests_per_s / 2);
  row('events/s native / wasm', `${fmt(native.events_per_s)} / ${fmt(wasm.events_per_s)}`, '', undefined);
  row('events per request', fmt(native.events_per_request, 2), '', undefined);

  // Skip to end: 10 simulated minutes of each scenario at its defaults, charts drawn.
  for (const id of Object.keys(native.scenarios_ms)) {
    const p = await openPage(browser);
    await p.goto(`${server.base}/?sim=${id}&duration_ms=600000`);
    await p.waitForSelector('main');
    if (!(await p.$('[data-action="skip"]'))) { row(`skip to end, ${id}`, 'no page', '< 200 ms', false); await p.context().close(); continue; }
    const ms = await p.evaluate(async () => {
      const t0 = performance.now();
      document.querySelector('[data-action="skip"]').click();
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t0;
    });
    const problems = p.problems();
    await p.context().close();
    row(`skip to end, ${id} (10 simulated min, drawn)`, `${fmt(ms, 1)} ms`, '< 200 ms', ms < 200 && problems.length === 0);
  }

  // Frames: the work of one animation frame (simulation step, charts, DOM, style and layout).
  for (const speed of [1, 64]) {
    const p = await openPage(browser);
    // A frame's work: from the start of the animation-frame callback (the simulation step)
    // through the reactive updates and chart drawing it triggers (microtasks), to the style
    // and layout those DOM changes need (forced at the end). Painting is the browser's own.
    await p.addInitScript(() => {
      window.frameWork = [];
      window.longTasks = 0;
      new PerformanceObserver((l) => { window.longTasks += l.getEntries().length; }).observe({ type: 'longtask', buffered: true });
      const raf = window.requestAnimationFrame.bind(window);
      const settle = (start, depth) => {
        if (depth > 0) { queueMicrotask(() => settle(start, depth - 1)); return; }
        document.body.getBoundingClientRect();
        window.frameWork.push(performance.now() - start);
      };
      window.requestAnimationFrame = (cb) => raf((t) => {
        const start = performance.now();
        cb(t);
        settle(start, 32);
      });
    });
    await p.goto(`${server.base}/?sim=slow-server&duration_ms=3600000&speed=${speed}`);
    await p.waitForSelector('[data-action="play"]');
    await p.evaluate(() => { window.longTasks = 0; });
    await p.click('[data-action="play"]');
    await p.waitForFunction(() => window.frameWork.length >= 600, null, { timeout: 60000 });
    const { work, longTasks } = await p.evaluate(() => ({ work: window.frameWork.slice(0, 600), longTasks: window.longTasks }));
    await p.context().close();
    const p95 = pct(work, 0.95);
    row(`frame work p95 at ${speed}× (600 frames)`, `${fmt(p95, 2)} ms (max ${fmt(Math.max(...work), 1)})`, '< 4 ms', p95 < 4);
    row(`long tasks (> 50 ms) at ${speed}×`, String(longTasks), '0', longTasks === 0);
  }

  // Memory of a one-hour simulated run at 1,000 requests/s.
  const m = await openPage(browser);
  await m.goto(`${server.base}/?bench=memory`);
  await m.waitForSelector('[data-bench="done"]', { timeout: 180000 });
  const mem = JSON.parse(await m.textContent('#bench-result'));
  await m.context().close();
  const mb = (b) => `${fmt(b / 1048576, 2)} MB`;
  const flat = mem.at(-1).wasm_bytes <= mem[0].wasm_bytes * 1.1;
  row('wasm memory at 1 / 10 / 60 simulated min', mem.map((r) => mb(r.wasm_bytes)).join(' / '), 'flat', flat);
  row('JS heap at 1 / 10 / 60 simulated min', mem.map((r) => mb(r.js_heap_bytes)).join(' / '), 'flat', mem.at(-1).js_heap_bytes <= mem[0].js_heap_bytes * 1.5);

  // Load: the whole app gzipped, and navigation to the first interactive simulation.
  let total = 0;
  for (const f of await readdir(dist)) total += gzipSync(await readFile(join(dist, f)), { level: 9 }).length;
  row('whole app, gzipped (HTML, JS, wasm, CSS)', `${fmt(total / 1024, 1)} KB`, '< 150 KB', total < 150 * 1024);
  // The floor: Leptos and all five models with one trivial page (examples/bundle_floor.rs),
  // plus the app's own HTML and CSS; what the goal leaves for the five pages is 150 KB minus it.
  let floor = 0;
  for (const f of await readdir(process.argv[3])) floor += gzipSync(await readFile(join(process.argv[3], f)), { level: 9 }).length;
  for (const f of await readdir(dist)) if (/\.(html|css|svg)$/.test(f)) floor += gzipSync(await readFile(join(dist, f)), { level: 9 }).length;
  row('  floor: Leptos + every model + one bare page', `${fmt(floor / 1024, 1)} KB`, '', undefined);
  row('  so the goal leaves the five pages and kit', `${fmt(150 - floor / 1024, 1)} KB`, `they take ${fmt((total - floor) / 1024, 1)} KB`, undefined);
  const loads = [];
  for (let i = 0; i < 7; i++) {
    const p = await openPage(browser);
    await p.goto(`${server.base}/?sim=slow-server`);
    await p.waitForSelector('body[data-ready-ms]');
    loads.push(Number(await p.getAttribute('body', 'data-ready-ms')));
    await p.context().close();
  }
  row('navigation to first interactive simulation (median of 7)', `${fmt(median(loads), 0)} ms`, '< 500 ms', median(loads) < 500);
} finally {
  await browser.close();
  await server.close();
}

const w = [48, 34, 26];
console.log(`${'figure'.padEnd(w[0])} ${'measured'.padEnd(w[1])} ${'goal'.padEnd(w[2])} met`);
for (const r of rows) console.log(`${r.figure.padEnd(w[0])} ${r.measured.padEnd(w[1])} ${r.goal.padEnd(w[2])} ${r.ok}`);
