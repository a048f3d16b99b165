// The browser half of `scripts/bench.sh`: measures the built app (dist/) in headless Chromium
// and prints one table with the native figures (the JSON file given as argv[2]) and the CLI
// sweep's thread scaling (argv[3]: "one,two" seconds), each figure next to its goal.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, launch, openPage, dist, scenarioIds } from '../tests/browser/harness.mjs';
import { serveDir } from './static-server.mjs';

// BENCH_ONLY=frames,phone (any of core, skip, frames, heavy, sweeps, memory, load, phone) runs only those
// parts; BENCH_SIMS=a,b only those simulations: for measuring one change.
const only = (part) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(part);
const ids = () => scenarioIds().filter((id) => !process.env.BENCH_SIMS || process.env.BENCH_SIMS.split(',').includes(id));
const native = only('core') ? JSON.parse(await readFile(process.argv[2], 'utf8')) : null;
const [sweepOne, sweepTwo] = only('core') ? process.argv[3].split(',').map(Number) : [];
const server = await serve({}, { isolated: true });
const browser = await launch();
const rows = [];
const row = (figure, measured, goal, ok) => rows.push({ figure, measured, goal, ok: ok === undefined ? '' : ok ? 'yes' : 'NO' });
const fmt = (n, d = 0) => Number(n).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const pct = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]; };

/**
 * A page whose animation-frame work is recorded: from the start of each frame callback (the
 * simulation step, or a background slice) through the reactive updates and drawing it triggers
 * (microtasks) to the style and layout they need. `throttle`: Chromium's CPU slowdown factor.
 */
async function framePage(url, throttle = 1, viewport = {}) {
  const p = await openPage(browser, viewport);
  if (throttle > 1) {
    const cdp = await p.context().newCDPSession(p);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  }
  await p.addInitScript(() => {
    window.frameWork = [];
    window.frameAt = [];
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
      // Each callback's frame (its timestamp): a frame's work is the sum of its callbacks'.
      window.frameAt.push(t);
      cb(t);
      settle(start, 32);
    });
  });
  await p.goto(url);
  await p.waitForSelector('main');
  return p;
}

/**
 * Frames while a one-hour run plays, on the phone profile's screen and CPU (412 × 915, 4×
 * slower): the work of each frame (see `framePage`) and the interval between frames (60 Hz:
 * 16.7 ms; a dropped frame makes one of 33 ms). The page first runs the same settings on 20 more
 * seeds in the background (the spread under the cards); playback is measured once that is done.
 * `view` is '' for the full page, '&embed=1' for the figure.
 */
async function frames(id, view, speed, n = 300, durationMs = 3600000) {
  const p = await framePage(`${server.base}/?sim=${id}${view}&duration_ms=${durationMs}&speed=${speed}`, 4, { width: 412, height: 915 });
  await p.waitForSelector('[data-action="play"]');
  await p.waitForSelector('[data-spread-ms]:not([data-spread-ms=""])', { timeout: 300000 });
  await p.evaluate(() => { window.longTasks = 0; window.frameWork = []; window.frameAt = []; });
  await p.click('[data-action="play"]');
  await p.waitForFunction((n) => new Set(window.frameAt).size >= n, n, { timeout: 120000 });
  const { work, at, longTasks } = await p.evaluate(() => ({ work: window.frameWork, at: window.frameAt, longTasks: window.longTasks }));
  const problems = p.problems();
  await p.context().close();
  const perFrame = new Map();
  at.forEach((t, i) => perFrame.set(t, (perFrame.get(t) ?? 0) + (work[i] ?? 0)));
  const times = [...perFrame.keys()].sort((a, b) => a - b).slice(0, n);
  const intervals = times.slice(1).map((t, i) => t - times[i]);
  return { work: pct(times.map((t) => perFrame.get(t)), 0.95), interval: pct(intervals, 0.95), longTasks, problems };
}

/** A row of `frames`' result against the goals: frame work under 8 ms, the interval at 20 ms or less. */
const frameRow = (what, r) => row(`${what}, frame work / interval p95`,
  `${fmt(r.work, 1)} / ${fmt(r.interval, 1)} ms, ${r.longTasks} long tasks`, '< 8 / <= 20 ms, none',
  r.work < 8 && r.interval <= 20 && r.longTasks === 0 && r.problems.length === 0);

/** The settings at which each picture draws the most: every parameter that adds dots at its top. */
const HEAVIEST = [
  ['slow-server', '&rate=3000&servers=8&workers=16&slowdown=50&timeout_ms=2000'],
  ['cascade', '&pool_size=200&recs_pool_size=200&home_rate=200&checkout_rate=100'],
  ['retry-storm', '&clients=200&capacity=100&layers=3&attempts_per_layer=5'],
  ['at-least-once', '&messages=5000&publish_rate=1000&consumers=16&crash_rate=20&restart_ms=60000'],
  ['choosing-numbers', '&rate=200&fan_out=20&sequential_calls=3&max_attempts=5'],
];

/**
 * The phone profile: 412 × 915, CPU 4× slower, 1.6 Mbit/s down, 750 kbit/s up, 150 ms round
 * trips, an empty cache. Returns the bytes over the wire (every response, headers included) and,
 * on a simulation's page, when its Play button appeared after navigation (null on the home page).
 */
async function phoneLoad(url) {
  const { page: p, bytes } = await phonePage();
  await p.goto(url);
  const sim = new URL(url).searchParams.has('sim');
  if (sim) await p.waitForFunction(() => window.playAt !== undefined, null, { timeout: 60000 });
  await p.waitForLoadState('networkidle');
  const playMs = sim ? await p.evaluate(() => window.playAt) : null;
  await p.context().close();
  return { bytes: bytes(), playMs };
}

/** A page on the phone profile that notes, in every frame it holds, when Play appeared. */
async function phonePage() {
  const p = await openPage(browser, { width: 412, height: 915 });
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
  await p.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-action="play"]')) { window.playAt = performance.now(); observer.disconnect(); }
    }).observe(document, { childList: true, subtree: true });
  });
  return { page: p, bytes: () => bytes };
}

/**
 * A chapter page on another origin holding `snippets` (the README's iframes, pointed at `lab`)
 * and embed.js, on the phone profile. Every frame is loaded at once (loading="lazy" removed:
 * a reader who scrolls through the chapter): the bytes over the wire, and when the last
 * frame's Play appeared after the chapter's navigation.
 */
async function phoneChapter(lab, snippets) {
  const frames = snippets.map((tag) => tag.replaceAll('https://example.org/lab/', `${lab}/lab/`).replace(' loading="lazy"', ''));
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
    <title>Chapter 1</title><script src="${lab}/lab/embed.js"></script></head><body style="margin:0 8px">
    ${frames.map((f, i) => `<p>Paragraph ${i + 1} of the chapter.</p>${f}`).join('\n')}<p>The end.</p></body></html>`;
  const chapter = await serveDir(dist, { extra: { '/chapter-1.html': html } });
  try {
    const { page: p, bytes } = await phonePage();
    await p.goto(`${chapter.base}/chapter-1.html`);
    await p.waitForFunction((n) => document.querySelectorAll('iframe').length === n, frames.length);
    // The frames are asked afresh each time: a frame listed before its document arrived can be
    // replaced by the one that holds the simulation.
    const origin = await p.evaluate(() => performance.timeOrigin);
    const deadline = Date.now() + 120000;
    let played = [];
    for (;;) {
      const sims = p.frames().filter((f) => f !== p.mainFrame() && f.url().includes('sim='));
      played = await Promise.all(sims.map((f) => f.evaluate(() => window.playAt === undefined ? null : performance.timeOrigin + window.playAt).catch(() => null)));
      if (sims.length === frames.length && played.every((t) => t !== null)) break;
      if (Date.now() > deadline) throw new Error(`chapter: Play in ${played.filter((t) => t !== null).length} of ${frames.length} frames`);
      await p.waitForTimeout(100);
    }
    const last = Math.max(...played) - origin;
    await p.waitForLoadState('networkidle');
    const result = { bytes: bytes(), playMs: last, frames: p.frames().length - 1 };
    await p.context().close();
    return result;
  } finally {
    await chapter.close();
  }
}

/** The page's own benchmark `kind` (`?bench=`, src/ui/pages/bench.rs): its JSON result. */
async function pageBench(kind, timeout) {
  const p = await openPage(browser);
  await p.goto(`${server.base}/?sim=slow-server&bench=${kind}`);
  await p.waitForSelector('[data-bench="done"]', { timeout });
  const result = JSON.parse(await p.textContent('#bench-result'));
  await p.context().close();
  return result;
}

try {
  if (only('core')) {
    // Core speed, native and in wasm.
    const wasm = await pageBench('core', 120000);
    row('slow-server 600 s, native: simulated requests/s', fmt(native.requests_per_s), '>= 4,000,000', native.requests_per_s >= 4e6);
    row('slow-server 600 s, wasm: simulated requests/s', fmt(wasm.requests_per_s), `>= ${fmt(native.requests_per_s / 2)} (half native)`, wasm.requests_per_s >= native.requests_per_s / 2);
    row('events/s native / wasm', `${fmt(native.events_per_s)} / ${fmt(wasm.events_per_s)}`, '', undefined);
    row('CLI sweep (slow-server default, 300 runs), 1 / 2 threads', `${fmt(sweepOne, 2)} / ${fmt(sweepTwo, 2)} s (×${fmt(sweepOne / sweepTwo, 2)})`, '>= 1.7× faster with 2', sweepOne / sweepTwo >= 1.7);
  }
  if (only('skip')) {
    // Skip to end: 10 simulated minutes of each scenario at its defaults, charts drawn.
    for (const id of ids()) {
      const p = await openPage(browser);
      await p.goto(`${server.base}/?sim=${id}&duration_ms=600000`);
      await p.waitForSelector('[data-action="skip"]');
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
  }
  if (only('frames')) {
    // Frames of every page and every figure while it plays, on the phone profile's screen and CPU.
    for (const id of ids()) {
      for (const [view, name] of [['', 'page'], ['&embed=1', 'embed']]) {
        for (const speed of [1, 64]) {
          frameRow(`phone: ${id} ${name} at ${speed}×`, await frames(id, view, speed));
        }
      }
    }
  }
  if (only('heavy')) {
    // Each picture at the setting that draws the most (issue 44, item 6), as a figure on the
    // phone profile: two simulated minutes (the page's 20-seed spread of an hour at these
    // settings takes over five minutes on a phone), at 1× and 16× (300 frames at 16× stay
    // inside the two minutes).
    for (const [id, query] of HEAVIEST.filter(([id]) => ids().includes(id))) {
      for (const speed of [1, 16]) {
        frameRow(`phone: ${id} embed${query} at ${speed}×`, await frames(id, `&embed=1${query}`, speed, 300, 120000));
      }
    }
  }
  if (only('sweeps')) {
    // Sweeps in the browser: slow-server's default sweep and a 20-seed spread.
    {
      const p = await framePage(`${server.base}/?sim=slow-server&sweep=slowdown`);
      await p.waitForSelector('[data-sweep-progress="done"]', { timeout: 60000 });
      const took = Number(await p.getAttribute('[data-sweep-ms]', 'data-sweep-ms'));
      const work = await p.evaluate(() => window.frameWork.filter((w) => w > 0.2));
      await p.context().close();
      row('slow-server default sweep (15 × 4 policies × 5 seeds)', `${fmt(took / 1000, 2)} s`, '< 2 s', took < 2000);
      row('  frame work p95 while it runs', `${fmt(pct(work, 0.95), 2)} ms`, '< 8 ms', pct(work, 0.95) < 8);
    }
    {
      const p = await framePage(`${server.base}/?sim=slow-server&duration_ms=3600000`);
      // The spread starts 400 ms after the page settles: what came before (loading) is not its.
      await p.evaluate(() => { window.longTasks = 0; window.frameWork = []; });
      await p.waitForSelector('[data-spread-ms]:not([data-spread-ms=""])', { timeout: 300000 });
      const took = Number(await p.getAttribute('[data-spread-ms]', 'data-spread-ms'));
      const { work, longTasks } = await p.evaluate(() => ({ work: window.frameWork.filter((w) => w > 0.2), longTasks: window.longTasks }));
      await p.context().close();
      row('slow-server 20-seed spread of a one-hour run (20 simulated hours)', `${fmt(took / 1000, 2)} s`, '', undefined);
      row('  frame work p95 while it runs', `${fmt(pct(work, 0.95), 2)} ms (${longTasks} long tasks)`, '< 8 ms', pct(work, 0.95) < 8 && longTasks === 0);
    }
    for (const id of ids()) {
      const p = await openPage(browser);
      await p.goto(`${server.base}/?sim=${id}`);
      await p.waitForSelector('[data-spread-ms]:not([data-spread-ms=""])', { timeout: 60000 });
      const took = Number(await p.getAttribute('[data-spread-ms]', 'data-spread-ms'));
      await p.context().close();
      row(`20-seed spread of ${id}'s defaults`, `${fmt(took, 0)} ms`, '< 1 s', took < 1000);
    }
  }
  if (only('memory')) {
    // Memory of a one-hour simulated run at 1,000 requests/s.
    const mem = await pageBench('memory', 180000);
    const mb = (b) => `${fmt(b / 1048576, 2)} MB`;
    row('wasm memory at 1 / 10 / 60 simulated min', mem.map((r) => mb(r.wasm_bytes)).join(' / '), 'flat', mem.at(-1).wasm_bytes <= mem[0].wasm_bytes * 1.1);
    row('JS heap at 1 / 10 / 60 simulated min', mem.map((r) => mb(r.js_heap_bytes)).join(' / '), 'flat', mem.at(-1).js_heap_bytes <= mem[0].js_heap_bytes * 1.5);
  }
  if (only('load')) {
    // Load: navigation to the first interactive simulation, on this machine.
    const loads = [];
    for (let i = 0; i < 7; i++) {
      const p = await openPage(browser);
      await p.goto(`${server.base}/?sim=slow-server`);
      await p.waitForSelector('body[data-ready-ms]');
      loads.push(Number(await p.getAttribute('body', 'data-ready-ms')));
      await p.context().close();
    }
    row('navigation to first interactive simulation (median of 7)', `${fmt(median(loads), 0)} ms`, '< 500 ms', median(loads) < 500);
  }
  if (only('phone')) {
    // The phone profile: each README snippet opened alone, and the home page, served gzipped -9.
    const gzipped = await serve({}, { gzip: true });
    try {
      const readme = await readFile(join(dist, '..', 'README.md'), 'utf8');
      const snippets = [...readme.matchAll(/<iframe src="https:\/\/example\.org\/lab\/(\?[^"]+)"/g)].map((m) => m[1].replaceAll('&amp;', '&'));
      for (const query of snippets) {
        const r = await phoneLoad(`${gzipped.base}/${query}`);
        const id = new URLSearchParams(query).get('sim');
        row(`phone: ${id} snippet alone, bytes / Play usable`, `${fmt(r.bytes / 1024, 1)} KB / ${fmt(r.playMs)} ms`, '<= 150 KB / <= 2,000 ms',
          r.bytes <= 150 * 1024 && r.playMs <= 2000);
      }
      // Chapter 1's snippets (the README's placements in Chapter 1) in one chapter page.
      const embedding = readme.slice(readme.indexOf('## Embedding a simulation'));
      const chapterOne = [...embedding.matchAll(/^Chapter 1, [\s\S]*?```html\n(<iframe[\s\S]*?<\/iframe>)/gm)].map((m) => m[1]);
      const ch = await phoneChapter(gzipped.base, chapterOne);
      row(`phone: Chapter 1's ${chapterOne.length} snippets in one page, bytes / all Play usable`,
        `${fmt(ch.bytes / 1024, 1)} KB / ${fmt(ch.playMs)} ms`, '', ch.frames === chapterOne.length ? undefined : false);
      const home = await phoneLoad(`${gzipped.base}/`);
      row('phone: home page, bytes', `${fmt(home.bytes / 1024, 1)} KB`, '<= 100 KB', home.bytes <= 100 * 1024);
    } finally {
      await gzipped.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}

const w = [52, 40, 28];
console.log(`${'figure'.padEnd(w[0])} ${'measured'.padEnd(w[1])} ${'goal'.padEnd(w[2])} met`);
for (const r of rows) console.log(`${r.figure.padEnd(w[0])} ${r.measured.padEnd(w[1])} ${r.goal.padEnd(w[2])} ${r.ok}`);
