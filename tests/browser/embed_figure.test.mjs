// Issue 22: an embed is a figure. Every README snippet fits one screen of a 720 px chapter
// column at exactly the height its snippet gives, keeps that height while its run plays, shows
// its chart and its controls in one view, says something before Play, and a chapter page on
// another origin holding all of them (and embed.js) does not jump while it is read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, openPage, ready, screenshot, scenarios, scenarioIds, setSlider, untilFinished, plain, cliRun, viewAs } from './harness.mjs';

/** The README's snippets: the query, the 720 px height, the phone heights, the title. */
async function readmeSnippets() {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  return [...readme.matchAll(/<iframe src="https:\/\/example\.org\/lab\/(\?[^"]+)"([^>]*)><\/iframe>/gs)]
    .map((m) => parseSnippet(m[1], m[2]));
}

function parseSnippet(query, attrs) {
  const height = Number(/height:(\d+)px/.exec(attrs)?.[1]);
  const narrow = Object.fromEntries((/data-lab-heights="([^"]*)"/.exec(attrs)?.[1] ?? '').split(',')
    .filter(Boolean).map((p) => p.split(':').map(Number)));
  const title = /title="([^"]*)"/.exec(attrs)?.[1];
  return { query: query.replaceAll('&amp;', '&'), height, narrow, title };
}

const figureHeight = (page) => page.evaluate(() => document.body.scrollHeight);
const simOf = (query) => new URLSearchParams(query).get('sim');

/** Opens a snippet's figure as its frame would show it: `width` px wide. */
async function openFigure(browser, server, query, width, height = 800) {
  return showFigure(await openPage(browser, { width, height }), query, width, height);
}

/** Loads a snippet's figure into `page` (reused: see `viewAs`) as a new frame `width` px wide would. */
async function showFigure(page, query, width, height = 800) {
  await viewAs(page, { width, height });
  await page.goto(`${server.base}/${query}`);
  await ready(page);
  await page.waitForSelector('[data-figure]');
  return page;
}

/** Every height the body takes from now on, as a ResizeObserver sees it. */
async function watchHeights(page) {
  await page.evaluate(() => {
    window.seenHeights = [document.body.scrollHeight];
    new ResizeObserver(() => window.seenHeights.push(document.body.scrollHeight)).observe(document.body);
  });
}

let server, browser;
before(async () => {
  server = await serve();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

test('the README has a snippet for every simulation, Chapter 2 Part 1 naming its three presets', async () => {
  const snippets = await readmeSnippets();
  const sims = new Set(snippets.map((s) => simOf(s.query)));
  for (const id of scenarioIds()) assert.ok(sims.has(id), `a snippet for ${id}`);
  const storm = snippets.find((s) => simOf(s.query) === 'retry-storm');
  assert.equal(new URLSearchParams(storm.query).get('presets'), 'fixed,exponential,jitter');
  for (const s of snippets) {
    assert.ok(s.height > 0 && s.narrow[360] > 0 && s.narrow[412] > 0, `${s.query}: heights at 720, 412 and 360 px`);
  }
});

/**
 * Issue 44: on a phone (412 px wide, 780 px of screen) the question, the play bar, the picture
 * and the verdict line are on the first screen, in that order, the controls under them.
 */
async function phoneScreen(page) {
  const at = await page.evaluate(() => {
    const top = document.querySelector('[data-figure]').getBoundingClientRect().top;
    const box = (sel) => { const r = document.querySelector(sel)?.getBoundingClientRect(); return r && { top: r.top - top, bottom: r.bottom - top }; };
    return { play: box('.play-controls'), chart: box('.figure-chart'), verdict: box('.figure-verdict'), panel: box('aside.panel') };
  });
  const problems = [];
  if (!at.verdict) return ['no verdict line'];
  if (at.verdict.bottom > 780) problems.push(`the verdict line ends ${Math.round(at.verdict.bottom)} px from the figure's top at 412 (at most 780)`);
  if (!(at.play.bottom <= at.chart.top + 1 && at.chart.bottom <= at.verdict.top + 1 && at.verdict.bottom <= at.panel.top + 1)) {
    problems.push(`not play bar, picture, verdict, controls from the top: ${JSON.stringify(at)}`);
  }
  return problems;
}

/** The checks every snippet passes, the README's and the one "Copy embed snippet" gives. */
async function checkSnippet(s, name) {
  const problems = [];
  // 720 px: the snippet's height, one screen, the same before, during and after the run.
  const page = await openFigure(browser, server, s.query, 720, 800);
  assert.equal(await page.$('[data-notices]'), null, `${name}: no notice`);
  const before = await figureHeight(page);
  if (Math.abs(before - s.height) > 8) problems.push(`${name}: renders ${before} px at 720, its snippet says ${s.height}`);
  if (before > 760) problems.push(`${name}: ${before} px tall at 720 (at most 760)`);
  // The chart and every named control inside one 720 x 800 view.
  const outside = await page.evaluate(() => {
    const out = [];
    const chart = document.querySelector('.figure-chart');
    if (!chart || chart.getBoundingClientRect().bottom > innerHeight) out.push('the headline chart');
    for (const c of document.querySelectorAll('aside.panel .controls > *, aside.panel .preset-choice')) {
      const r = c.getBoundingClientRect();
      if (r.bottom > innerHeight || r.right > innerWidth) out.push(c.textContent.trim().slice(0, 30));
    }
    return out;
  });
  if (outside.length) problems.push(`${name}: outside the 720 x 800 view: ${outside.join('; ')}`);
  await screenshot(page, `figure-720-${name}-before`);
  await watchHeights(page);
  await page.click('[data-action="play"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 0);
  await page.click('[data-action="skip"]');
  await untilFinished(page);
  // Cards' spreads over seeds arrive while the run plays; they live in the cards' own boxes.
  await page.waitForSelector('[data-figure][data-spread-ms]:not([data-spread-ms=""])', { timeout: 60000 });
  const seen = [...new Set(await page.evaluate(() => [...window.seenHeights, document.body.scrollHeight]))];
  if (seen.length !== 1) problems.push(`${name}: the height changed during the run: ${seen.join(' -> ')} px`);
  await screenshot(page, `figure-720-${name}-after`);
  assert.deepEqual(page.problems(), [], name);
  // A phone's column: at most 1,300 px, as its snippet says, the same after the run.
  for (const width of [412, 360]) {
    const phone = await showFigure(page, s.query, width, 900);
    const h = await figureHeight(phone);
    if (Math.abs(h - s.narrow[width]) > 8) problems.push(`${name}: renders ${h} px at ${width}, its snippet says ${s.narrow[width]}`);
    if (width === 412) problems.push(...(await phoneScreen(phone)).map((p) => `${name}: ${p}`));
    if (h > 1300) problems.push(`${name}: ${h} px tall at ${width} (at most 1,300)`);
    if (width === 412) await screenshot(phone, `figure-412-${name}-before`);
    await phone.click('[data-action="skip"]');
    await untilFinished(phone);
    const after = await figureHeight(phone);
    if (after !== h) problems.push(`${name}: ${h} px at ${width} before the run, ${after} after`);
    if (width === 412) await screenshot(phone, `figure-412-${name}-after`);
    assert.deepEqual(phone.problems(), [], `${name} at ${width}`);
  }
  await page.context().close();
  return problems;
}

test('every README snippet: its own height at 720, 412 and 360 px, one screen, steady while it plays', async () => {
  const problems = [];
  const snippets = await readmeSnippets();
  for (const [i, s] of snippets.entries()) problems.push(...await checkSnippet(s, `${i + 1}-${simOf(s.query)}`));
  assert.deepEqual(problems, []);
});

test('keyboard order in every figure: the question, the play bar, the controls, then the rest', async () => {
  const page = await openPage(browser, { width: 720, height: 800 });
  for (const s of await readmeSnippets()) {
    await showFigure(page, s.query, 720);
    const regions = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const region = await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return null;
        if (el.closest('.figure-lead')) return 'question';
        if (el.closest('.play-controls')) return 'play';
        if (el.closest('aside.panel')) return 'controls';
        return el.matches('a.open-full') ? 'end' : 'rest';
      });
      if (region === null || region === 'end') break;
      if (regions.at(-1) !== region) regions.push(region);
    }
    const order = ['question', 'play', 'controls', 'rest'];
    const ranks = regions.map((r) => order.indexOf(r));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), `${s.query}: ${regions.join(', ')}`);
    assert.ok(regions.includes('play') && regions.includes('controls'), `${s.query}: ${regions.join(', ')}`);
  }
  await page.context().close();
});

test('before Play every figure draws its chart at the run\'s scale: axis, lanes, reference; no empty strip', async () => {
  const page = await openPage(browser, { width: 720, height: 800 });
  for (const s of await readmeSnippets()) {
    await showFigure(page, s.query, 720);
    await page.waitForFunction(() => {
      const c = document.querySelector('.figure-chart canvas');
      return c && c.width > 0 && c.height > 0;
    });
    const drawn = await page.evaluate(() => {
      const canvas = document.querySelector('.figure-chart canvas');
      const ctx = canvas.getContext('2d');
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let inked = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
      const labels = canvas.dataset.labels ? JSON.parse(canvas.dataset.labels).map((l) => l.text) : [];
      return { inked: inked / (data.length / 4), height: canvas.getBoundingClientRect().height, labels };
    });
    assert.ok(drawn.height >= 120, `${s.query}: the chart is ${drawn.height} px tall before Play`);
    assert.ok(drawn.inked > 0.01, `${s.query}: only ${(drawn.inked * 100).toFixed(2)}% of the chart is drawn before Play`);
  }
  await page.context().close();
});

test('presets= is one segmented control, show= adds parts, chart= picks the headline, unknown names get a notice', async () => {
  const page = await openFigure(browser, server, '?sim=slow-server&embed=1', 720);
  assert.equal(await page.locator('[data-preset]').count(), 0, 'no preset buttons without presets=');
  assert.equal(await page.locator('.figure-chart #picture').count(), 1, 'the picture is the headline');
  assert.equal(await page.locator('#chart-queues, #chart-latency, #chart-in-flight').count(), 0, 'no other chart');
  const controls = await page.$$eval('aside.panel [name]', (els) => [...new Set(els.map((e) => e.name))]);
  assert.deepEqual(controls, ['slowdown', 'policy', 'timeout_ms'], 'without controls=, the chapter\'s controls');
  await page.goto(`${server.base}/?sim=slow-server&embed=1&presets=chapter,least-outstanding&preset=least-outstanding&show=latency&chart=in-flight`);
  await page.waitForSelector('[data-figure]');
  assert.deepEqual(await page.$$eval('.preset-choice [data-preset]', (els) => els.map((e) => e.dataset.preset)), ['chapter', 'least-outstanding']);
  assert.equal(await page.getAttribute('[data-preset="least-outstanding"]', 'aria-pressed'), 'true');
  assert.equal(await page.locator('.figure-chart #chart-in-flight').count(), 1);
  assert.equal(await page.locator('.figure-extra #chart-latency').count(), 1);
  await page.click('[data-preset="chapter"]');
  assert.equal(await page.isChecked('input[name="policy"][value="round-robin"]'), true);
  // "Open full lab" carries the exact state, and what the figure shows, so it can be copied back.
  await setSlider(page, 'slowdown', 7);
  await page.waitForFunction(() => /slowdown=7/.test(document.querySelector('a.open-full').href));
  const full = new URLSearchParams(new URL(await page.$eval('a.open-full', (a) => a.href)).search);
  assert.equal(full.get('preset'), 'chapter');
  assert.equal(full.get('embed'), null);
  assert.equal(full.get('presets'), 'chapter,least-outstanding');
  assert.equal(await page.$('[data-notices]'), null);
  await page.goto(`${server.base}/?sim=cascade&embed=1&show=tour,table,nope&chart=zzz&presets=timeout,bogus`);
  await page.waitForSelector('[data-figure]');
  // The notice names each unknown name, and what the link could have said instead.
  const known = scenarios().find((sc) => sc.id === 'cascade').presets.map((p) => p.id).join(', ');
  assert.deepEqual(await page.$$eval('[data-notices] li', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim())), [
    `presets: unknown preset 'bogus' ignored. Known: ${known}.`,
    "show: this simulation has no part 'nope'; ignored. Its parts: picture, cards, home, verdict, pools, stats, tour, table, pool, waiting, checkout, charts, sweep, seed.",
    "chart: 'zzz' is not one of this simulation's charts (picture, home, pool, waiting, checkout).",
  ]);
  assert.equal(await page.locator('.figure-extra .tour').count(), 1);
  assert.equal(await page.locator('.figure-extra .chapter-table').count(), 1);
  assert.equal(await page.locator('.figure-chart [data-picture]').count(), 1, 'an unknown chart keeps the headline, the picture');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// The introductions and questions are the page's own wording: each is checked whole (a
// snapshot of the wording), not by a pattern over a part of it.
test('the introduction and the question follow the parameters, naming the chapter\'s setting as the chapter\'s', async () => {
  const page = await openPage(browser, { width: 1280 });
  const introOf = async (query) => {
    await page.goto(`${server.base}/?${query}`);
    await ready(page);
    return plain(await page.textContent('[data-intro]'));
  };
  assert.equal(await introOf('sim=slow-server'),
    "Server B becomes 5× slower at 1 s but stays healthy (the chapter's setting). Predict what happens to p99 under round robin, then watch B's queue.");
  assert.equal(await introOf('sim=slow-server&slowdown=8&slow_at_ms=2000&policy=random'),
    "Server B becomes 8× slower at 2 s but stays healthy (in the chapter: 5× at 1 s). Predict what happens to p99 under random, then watch B's queue.");
  await page.goto(`${server.base}/?sim=slow-server&embed=1&slowdown=3`);
  await page.waitForSelector('[data-figure]');
  assert.equal(plain(await page.textContent('.figure-lead legend')),
    "Server B becomes 3× slower at 1 s but stays healthy (in the chapter: 5× at 1 s). Predict: under round robin, what happens to p99?");
  await setSlider(page, 'slowdown', 12);
  const twelve = "Server B becomes 12× slower at 1 s but stays healthy (in the chapter: 5× at 1 s). Predict: under round robin, what happens to p99?";
  await page.waitForFunction((want) => document.querySelector('.figure-lead legend').textContent.replace(/\s+/g, ' ').trim() === want, twelve)
    .catch(() => {});
  assert.equal(plain(await page.textContent('.figure-lead legend')), twelve);
  assert.equal(await introOf('sim=retry-storm'),
    "40 clients call a provider that is down from 2 s to 6 s and can take 8 calls per 100 ms tick once it is back (the chapter's setting). Compare the peak after recovery with that capacity.");
  assert.equal(await introOf('sim=deadline-chain&user_budget_ms=2500'),
    'A calls B calls C; C needs 3 s of work and the user waits 2.5 s (in the chapter: 3 s and 2 s). Compare fixed timeouts with a propagated budget.');
  assert.equal(await introOf('sim=double-click&second_click=false'),
    'A buyer clicks Pay once. Set the fix to None, then Disable, then Idempotency key, and count the charges on the card.');
  assert.equal(await introOf('sim=double-click'),
    "A buyer clicks Pay twice, the second click 600 ms after the first (the chapter's setting). Set the fix to None, then Disable, then Idempotency key, and count the charges on the card.");
  assert.equal(await introOf('sim=retry-storm&clients=60&down_until_ms=9000'),
    '60 clients call a provider that is down from 2 s to 9 s and can take 8 calls per 100 ms tick once it is back (in the chapter: 40 clients, down from 2 s to 6 s, 8 per tick). Compare the peak after recovery with that capacity.');
  assert.equal(await introOf('sim=cascade'),
    "50 /home and 10 /checkout requests per second for 10 s share one pool of 20 connections; recommendations stops answering at 0 s (the chapter's setting). Fix: No timeout.");
  assert.equal(await introOf('sim=cascade&pool_size=40&recs_stops_at_ms=12000&variant=timeout'),
    '50 /home and 10 /checkout requests per second for 10 s share one pool of 40 connections; recommendations would stop answering at 12 s, after the load ends (in the chapter: 50 and 10 per second for 10 s, a pool of 20, stopping at 0 s). Fix: Timeout.');
  assert.equal(await introOf('sim=which-timeout&preset=fetch-silent'),
    "One fetch (undici) call; what goes wrong: Silent server (the chapter's row: fetch, silent server). Its timers: connect 10000 ms, headers 5 min, body 5 min, total (AbortSignal) none.");
  assert.equal(await introOf('sim=which-timeout&client=node-http&fault=blackhole&http_timeout_ms=3000'),
    'One node:http call; what goes wrong: Blackholed address. Its timers: timeout option 3000 ms, total (AbortSignal) none.');
  assert.equal(await introOf('sim=at-least-once'),
    "1,000 events at 10 per second go to 4 consumers that crash on 2% of deliveries (the chapter's setting). Order: Process, then ack; dedupe on: Producer's event ID.");
  assert.equal(await introOf('sim=at-least-once&consumers=1&crash_rate=10&order=txn-dedupe'),
    "1,000 events at 10 per second go to 1 consumer that crashes on 10% of deliveries (in the chapter: 1,000 events to 4 consumers, 2% crashes). Order: Process + record the ID, then ack; dedupe on: Producer's event ID.");
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('"Copy embed snippet" gives a README-quality snippet: embed.js first, presets used, controls, measured heights', async () => {
  const page = await openPage(browser, { width: 1280 });
  await page.goto(`${server.base}/?sim=retry-storm`);
  await ready(page);
  for (const id of ['fixed', 'exponential', 'jitter']) await page.click(`.presets-bar [data-preset="${id}"]`);
  await page.click('[data-action="copy-embed"]');
  await page.waitForSelector('textarea[aria-label="Embed snippet"]', { timeout: 30000 });
  const text = await page.inputValue('textarea[aria-label="Embed snippet"]');
  // embed.js first, for the chapter's <head> (README, "Embedding"), then where the figure goes.
  const m = new RegExp('^<!-- Once per chapter page, in its <head>: -->\n<script src="http://127\\.0\\.0\\.1:\\d+/embed\\.js"></script>\n'
    + '<!-- Where the figure goes: -->\n<iframe src="http://127\\.0\\.0\\.1:\\d+/(\\?[^"]+)"([^>]*)></iframe>$').exec(text);
  assert.ok(m, text);
  const s = parseSnippet(m[1], m[2]);
  const q = new URLSearchParams(s.query);
  assert.equal(q.get('presets'), 'fixed,exponential,jitter');
  assert.equal(q.get('preset'), 'jitter');
  assert.equal(q.get('controls'), 'mode,budget_pct');
  assert.equal(q.get('embed'), '1');
  assert.equal(s.title, 'Retry storm');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  assert.deepEqual(await checkSnippet(s, 'copied-retry-storm'), []);
});

/** A chapter page: a 720 px text column, text between the README's snippets, embed.js in the head. */
function chapterPage(lab, snippets) {
  const para = (n) => `<p>Paragraph ${n} of the chapter. ${'A timeout tells you nothing about what the server did. '.repeat(6)}</p>`;
  const frames = snippets.map((s, i) => `${para(i * 2)}${para(i * 2 + 1)}
    <iframe src="${lab}/lab/${s.query.replaceAll('&', '&amp;')}" title="${s.title}" style="width:100%;height:${s.height}px;border:0"
      data-lab-heights="${Object.entries(s.narrow).map(([w, h]) => `${w}:${h}`).join(',')}" loading="lazy"></iframe>`);
  return `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chapter</title>
<script src="${lab}/lab/embed.js"></script>
<script>
  window.shifts = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.shifts.push(e.value); })
    .observe({ type: 'layout-shift', buffered: true });
  window.reports = new Set();
  addEventListener('message', (e) => {
    const f = [...document.querySelectorAll('iframe')].find((x) => x.contentWindow === e.source);
    if (f && e.data && e.data.type === 'resilience-lab:height') window.reports.add(f);
  });
</script></head>
<body style="margin:0;font:17px/1.6 Georgia,serif"><article style="max-width:720px;margin:0 auto;padding:0 16px;box-sizing:content-box">
<h1>Chapter</h1>${frames.join('\n')}${para(99)}</article></body></html>`;
}

test('a chapter page on another origin with every README snippet does not shift as it is read (CLS <= 0.02)', async () => {
  const snippets = await readmeSnippets();
  const host = await serve({ '/chapter.html': chapterPage(server.base, snippets) });
  assert.notEqual(new URL(host.base).port, new URL(server.base).port, 'the chapter is on another origin');
  const results = [];
  for (const width of [720 + 32, 412]) {
    const page = await openPage(browser, { width, height: 800 });
    await page.goto(`${host.base}/chapter.html`);
    const count = await page.locator('iframe').count();
    // Scroll down a screen at a time; at each frame, wait until it has loaded and reported.
    for (let i = 0; i < count; i++) {
      await page.locator('iframe').nth(i).scrollIntoViewIfNeeded();
      await page.waitForFunction((n) => [...window.reports].includes(document.querySelectorAll('iframe')[n]), i, { timeout: 30000 });
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    }
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    const cls = await page.evaluate(() => window.shifts.reduce((a, b) => a + b, 0));
    results.push({ width, cls });
    await screenshot(page, `chapter-${width}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
  await host.close();
  console.log('layout shift', JSON.stringify(results));
  for (const { width, cls } of results) assert.ok(cls <= 0.02, `CLS ${cls.toFixed(4)} at ${width} px`);
});

test('a fixed box whose text runs past its bottom fades out there until scrolled to its end; a box that fits has no fade', async () => {
  const page = await openFigure(browser, server, '?sim=slow-server&embed=1&controls=policy,slowdown,timeout_ms', 412, 900);
  await page.click('[data-action="skip"]');
  await untilFinished(page);
  const box = (sel) => page.$eval(sel, (e) => ({ more: e.scrollHeight > e.clientHeight + 1, mask: getComputedStyle(e).maskImage }));
  // The answer to the prediction is longer than its box on a phone; the verdict fits in its own.
  const answer = await box('[data-answer]');
  assert.ok(answer.more, 'the answer runs past its box at 412 px');
  assert.match(answer.mask, /linear-gradient/, 'the answer fades out at its bottom');
  assert.equal((await box('.figure-verdict')).more, false);
  assert.equal((await box('.figure-verdict')).mask, 'none');
  await page.$eval('[data-answer]', (e) => { e.scrollTop = e.scrollHeight; });
  await page.waitForFunction(() => getComputedStyle(document.querySelector('[data-answer]')).maskImage === 'none');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Issue 46: a figure's preset buttons keep what its link sets beyond its preset. The chapter's
// snippet sets 100 clients and a capacity of 20; each of its three presets must be run there.
test('retry-storm: a figure\'s presets keep the link\'s 100 clients and capacity of 20', async () => {
  const base = 'sim=retry-storm&presets=fixed,exponential,jitter&clients=100&capacity=20&controls=clients,budget_pct';
  const page = await openFigure(browser, server, `?${base}&preset=fixed&embed=1`, 720);
  for (const preset of ['fixed', 'exponential', 'jitter']) {
    // The first run is skipped to its end; each preset pressed then shows its run there.
    if (preset === 'fixed') await page.click('[data-action="skip"]');
    else await page.click(`[data-preset="${preset}"]`);
    await untilFinished(page);
    const want = cliRun(['run', '--url', `?${base}&preset=${preset}`, '--json']).peak_after_recovery;
    await page.waitForFunction((w) => Number(document.querySelector('[data-stat="peak_after_recovery"]').dataset.value) === w, want);
    assert.equal(await page.getAttribute(`[data-preset="${preset}"]`, 'aria-pressed'), 'true', `${preset} is pressed`);
    assert.equal(await page.inputValue('input[type="range"][name="clients"]'), '100', `${preset}: 100 clients`);
    await page.waitForFunction((p) => location.search.includes(`preset=${p}`) && location.search.includes('clients=100') && location.search.includes('capacity=20'), preset);
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Issue 45, item 4: after a slider move the preset the reader chose stays marked "changed"
// (half pressed), and the buttons use the chapter's words ("set the fix to None …, then
// Disable …, then Idempotency key").
test('a preset moved away from stays marked "changed"; double-click\'s fix reads as the chapter says it', async () => {
  const page = await openFigure(browser, server, '?sim=retry-storm&embed=1&preset=fixed&presets=fixed,exponential,jitter&controls=clients,budget_pct', 720);
  await page.click('[data-preset="jitter"]');
  await page.waitForSelector('[data-preset="jitter"][aria-pressed="true"]');
  assert.equal(await page.isVisible('[data-preset="jitter"] [data-changed]'), false, 'not changed yet');
  await setSlider(page, 'clients', 60);
  await page.waitForSelector('[data-preset="jitter"][aria-pressed="mixed"]');
  assert.equal((await page.textContent('[data-preset="jitter"]')).trim(), 'Exp + jitter · changed');
  assert.equal(await page.getAttribute('[data-preset="fixed"]', 'aria-pressed'), 'false');
  await setSlider(page, 'clients', 40);
  await page.waitForSelector('[data-preset="jitter"][aria-pressed="true"]');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  const click = await openFigure(browser, server, '?sim=double-click&embed=1&controls=fix,second_click_ms', 720);
  const fixes = await click.$$eval('input[name="fix"]', (els) => els.map((e) => e.closest('label').textContent.trim()));
  assert.deepEqual(fixes.slice(0, 3), ['None', 'Disable', 'Idempotency key']);
  assert.deepEqual(click.problems(), []);
  await click.context().close();
});
