// Issue 5: every state is a URL, the embed layout inside a real iframe, the height message,
// hostile queries, and the app served under a sub-path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDir } from '../../scripts/static-server.mjs';
import { serve, launch, openPage, ready, screenshot, skipToEnd, stat, scenarioIds, scenarios, cli, dist, viewAs, holdClock, runClockUntil } from './harness.mjs';

const hostPage = (src, width) => `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chapter host</title></head>
<body style="margin:0;font-family:system-ui">
<p style="padding:0 8px">A chapter paragraph before the simulation.</p>
<iframe id="sim" src="${src}" title="Simulation" style="width:${width}px;height:400px;border:0;display:block"></iframe>
<script>
  window.heights = [];
  window.addEventListener('message', (e) => {
    const f = document.getElementById('sim');
    if (e.source !== f.contentWindow) return;
    if (e.data && e.data.type === 'resilience-lab:height' && Number.isFinite(e.data.height)) {
      window.heights.push(e.data);
      f.style.height = e.data.height + 'px';
    }
  });
</script></body></html>`;

let server, browser;
before(async () => {
  server = await serve({
    '/host-360.html': hostPage('/lab/?sim=slow-server&embed=1&controls=policy,rate&autoplay=1&speed=8', 360),
    '/host-1280.html': hostPage('/lab/?sim=slow-server&embed=1&preset=least-outstanding&presets=chapter,least-outstanding', 1280),
  });
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

test('a page loaded from a URL shows those values', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&rate=60&policy=least-outstanding&seed=7&speed=4`);
  await ready(page);
  assert.equal(await page.inputValue('input[type="range"][name="rate"]'), '60');
  assert.equal(await page.isChecked('input[name="policy"][value="least-outstanding"]'), true);
  assert.equal(await page.inputValue('input[name="seed"]'), '7');
  assert.equal(await page.inputValue('select[name="speed"]'), '4');
  assert.equal(await page.$('[data-notices]'), null, 'no notice for a valid URL');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('embed layout in a real iframe at 360 px: only the chosen controls, autoplay, height message', async () => {
  const page = await openPage(browser, { width: 360, height: 800 });
  await page.clock.install();
  await page.goto(`${server.base}/host-360.html`);
  const frame = page.frameLocator('#sim');
  await frame.locator('main').waitFor();
  assert.equal(await frame.locator('.app-header').count(), 0, 'no app chrome in the embed');
  const sliders = await frame.locator('input[type="range"]').evaluateAll((els) => els.map((e) => e.name));
  assert.deepEqual(sliders, ['rate']);
  assert.equal(await frame.locator('input[name="policy"]').count(), 4);
  assert.equal(await frame.locator('a.open-full').count(), 1);
  await page.waitForFunction(() => window.heights.length > 0 && window.heights.at(-1).height > 400, null, { timeout: 10000 });
  const msg = await page.evaluate(() => window.heights.at(-1));
  assert.equal(msg.sim, 'slow-server');
  // Autoplay: simulated time advances without a click, on the page's own clock.
  const inner = page.frames().find((f) => f.url().includes('embed=1'));
  await holdClock(page);
  await runClockUntil(page, () => inner.evaluate(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 1), 10000);
  await page.clock.resume();
  const scrollWidth = await inner.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrollWidth <= 360, `embed is ${scrollWidth}px wide in a 360px frame`);
  // The host has taken the figure's own height.
  await page.waitForFunction(() => document.getElementById('sim').clientHeight === window.heights.at(-1).height);
  await screenshot(page, 'embed-360');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('embed layout in a real iframe at 1280 px with the presets its link names', async () => {
  const page = await openPage(browser, { width: 1300, height: 900 });
  await page.goto(`${server.base}/host-1280.html`);
  const frame = page.frameLocator('#sim');
  await frame.locator('main').waitFor();
  assert.equal(await frame.locator('[data-preset="least-outstanding"]').getAttribute('aria-pressed'), 'true');
  assert.equal(await frame.locator('[data-preset]').count(), 2, 'only the presets the link names');
  await page.waitForFunction(() => window.heights.length > 0, null, { timeout: 10000 });
  await page.waitForFunction(() => document.getElementById('sim').clientHeight === window.heights.at(-1).height);
  await screenshot(page, 'embed-1280');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('a hostile query shows a notice, uses sane values, injects nothing', async () => {
  const page = await openPage(browser);
  const huge = 'x'.repeat(10_000);
  const q = new URLSearchParams({
    sim: 'slow-server', rate: 'NaN', servers: '-5', service_ms: '1e308', policy: '<script>window.pwned=1</script>',
    workers: '<img src=x onerror="window.pwned=2">', bogus: huge, seed: '-1', speed: 'Infinity', timeout_ms: '99999999',
  }).toString();
  await page.goto(`${server.base}/?${q}`);
  await ready(page);
  const notice = await page.textContent('[data-notices]');
  for (const word of ['rate', 'servers', 'service_ms', 'policy', 'workers', 'bogus', 'seed', 'speed', 'timeout_ms']) {
    assert.ok(notice.includes(word), `notice names ${word}: ${notice.slice(0, 300)}`);
  }
  assert.ok(notice.length < 3000, 'the notice stays short whatever the input');
  assert.equal(await page.inputValue('input[type="range"][name="servers"]'), '1');
  assert.equal(await page.inputValue('input[type="range"][name="service_ms"]'), '500');
  assert.equal(await page.inputValue('input[type="range"][name="rate"]'), '150');
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.$$eval('main img, main script', (els) => els.length), 0);
  await skipToEnd(page);
  const p99 = await stat(page, 'p99_ms_before');
  assert.ok(Number.isFinite(p99) && p99 > 0, `p99 before is a number: ${p99}`);
  const text = await page.textContent('main');
  assert.ok(!/NaN|undefined|Infinity/.test(text.replace(notice, '')), 'no NaN shown');
  await screenshot(page, 'hostile-query');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('an unknown scenario or preset falls back with a notice', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=nope&preset=zzz`);
  await ready(page);
  const notices = () => page.$$eval('[data-notices] li', (els) => els.map((e) => e.textContent.trim()));
  assert.equal((await page.textContent('[data-notices] strong')).trim(), 'Some of this link\'s settings were not used:');
  assert.deepEqual(await notices(), [`Unknown simulation 'nope'; showing the list instead. Known: ${scenarioIds().join(', ')}.`]);
  assert.deepEqual(await page.$$eval('.cards [data-scenario]', (els) => els.map((e) => e.dataset.scenario)), scenarioIds(), 'the home page is shown');
  await page.goto(`${server.base}/?sim=slow-server&preset=zzz`);
  await ready(page);
  const presets = scenarios().find((s) => s.id === 'slow-server').presets.map((p) => p.id);
  assert.deepEqual(await notices(), [`Unknown preset 'zzz' ignored. Known: ${presets.join(', ')}.`]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('the app works served under a sub-path', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/lab/?sim=slow-server&preset=b-fails`);
  await ready(page);
  await skipToEnd(page);
  // At the run's end, with calls served: the slowed B would have a long queue by now, unless it is down.
  assert.ok(await stat(page, 'completed') > 1000, 'the run served its calls');
  assert.equal(await stat(page, 'b_queue'), 0, 'B is down: nothing waits there');
  await page.click('.app-header .brand');
  await ready(page);
  assert.ok(page.url().startsWith(`${server.base}/lab/`), page.url());
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('a panic shows the error banner with a reset link, not a dead page', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&debug=panic`);
  await page.waitForSelector('[data-error-banner]', { timeout: 10000 });
  const href = await page.getAttribute('[data-action="reset-after-error"]', 'href');
  assert.equal(href, '/?sim=slow-server');
  await page.click('[data-action="reset-after-error"]');
  await ready(page);
  assert.equal(await page.$('[data-error-banner]'), null);
  // The deliberate panic logged errors before the reset; the reset page itself logs none.
  const afterReset = page.problems().filter((p) => !p.includes('debug=panic') && !p.includes('unreachable') && !p.includes('panicked'));
  assert.deepEqual(afterReset, []);
  await page.context().close();
});

test('the copy button gives the iframe snippet for the current state', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&preset=b-fails&rate=90`);
  await ready(page);
  await page.click('[data-action="copy-embed"]');
  await page.waitForSelector('textarea[aria-label="Embed snippet"]', { timeout: 30000 });
  const snippet = await page.inputValue('textarea[aria-label="Embed snippet"]');
  // The figure's state, then the chapter's controls (issue 22); its title is the scenario's.
  // Each element and attribute as the browser parses the snippet (the heights are measured).
  const parsed = await page.evaluate((html) => {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    return [...doc.querySelectorAll('iframe, script')].map((e) => ({ tag: e.localName, ...Object.fromEntries([...e.attributes].map((a) => [a.name, a.value])) }));
  }, snippet);
  const heights = parsed[1]?.['data-lab-heights'];
  assert.ok(/^360:\d+,412:\d+$/.test(heights ?? ''), `the heights measured at 360 and 412 px: ${heights}`);
  // embed.js first, as the README places it (once, in the chapter's <head>), then the iframe.
  assert.deepEqual(parsed, [
    { tag: 'script', src: `${server.base}/embed.js` },
    {
      tag: 'iframe',
      src: `${server.base}/?sim=slow-server&preset=b-fails&rate=90&embed=1&controls=policy,slowdown,timeout_ms`,
      title: scenarios().find((s) => s.id === 'slow-server').title,
      style: 'width:100%;height:720px;border:0',
      'data-lab-heights': heights,
      loading: 'lazy',
    },
  ]);
  assert.equal(scenarios().find((s) => s.id === 'slow-server').title, 'One slow server');
  assert.ok(snippet.startsWith(`<!-- Once per chapter page, in its <head>: -->\n<script src="${server.base}/embed.js"></script>\n`), snippet);
  assert.ok(snippet.includes(`\n<iframe src="${server.base}/?sim=slow-server&amp;preset=b-fails&amp;rate=90&amp;embed=1&amp;controls=policy,slowdown,timeout_ms"`), snippet);
  await screenshot(page, 'copy-embed-snippet');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('built with LAB_PUBLIC_URL, the copied snippet names that address, wherever the page was opened', async () => {
  // The site as build_web assembles it from the modules already built, with the setting.
  const out = await mkdtemp(join(tmpdir(), 'lab-public-'));
  const site = join(dist, '..', 'target', 'site');
  const build = (url) => spawnSync('node', ['scripts/site.mjs', join(site, 'stage'), out, join(site, 'list.json')],
    { cwd: join(dist, '..'), env: { ...process.env, LAB_PUBLIC_URL: url }, encoding: 'utf8' });
  const refused = build('example.org/lab');
  assert.equal(refused.status, 1, 'an address that is not http(s) stops the build');
  assert.match(refused.stderr, /LAB_PUBLIC_URL: 'example.org\/lab' is not the http\(s\) address/);
  assert.equal(build('https://example.org/lab/v0.1.0').status, 0);
  const pinned = await serveDir(out);
  try {
    const page = await openPage(browser);
    await page.goto(`${pinned.base}/lab/?sim=slow-server&preset=b-fails`);
    await ready(page);
    await page.click('[data-action="copy-embed"]');
    await page.waitForSelector('textarea[aria-label="Embed snippet"]', { timeout: 30000 });
    const snippet = await page.inputValue('textarea[aria-label="Embed snippet"]');
    assert.ok(snippet.startsWith('<!-- Once per chapter page, in its <head>: -->\n<script src="https://example.org/lab/v0.1.0/embed.js"></script>\n'), snippet);
    assert.match(snippet, /\n<iframe src="https:\/\/example\.org\/lab\/v0\.1\.0\/\?sim=slow-server&amp;preset=b-fails&amp;embed=1&amp;controls=[^"]+" title="One slow server"/);
    assert.ok(!snippet.includes('127.0.0.1'), snippet);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  } finally {
    await pinned.close();
    await rm(out, { recursive: true, force: true });
  }
});

test('every iframe snippet in the README loads its simulation with exactly the controls it names', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const snippets = [...readme.matchAll(/<iframe src="https:\/\/example\.org\/lab\/(\?[^"]+)"/g)].map((m) => m[1]);
  assert.ok(snippets.length >= scenarioIds().length, `found ${snippets.length} snippets`);
  const page = await openPage(browser, { width: 720 });
  for (const query of snippets) {
    const params = new URLSearchParams(query);
    await page.goto(`${server.base}/${query}`);
    await ready(page);
    assert.equal(await page.$('[data-notices]'), null, `${query}: no notice`);
    const names = await page.$$eval('aside.panel input', (els) => [...new Set(els.map((e) => e.name))]);
    assert.deepEqual(names.sort(), params.get('controls').split(',').sort(), query);
    assert.equal(await page.locator('a.open-full').count(), 1, query);
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('embed.js sizes every lab iframe on a chapter page to its content: no frame scrolls inside', async () => {
  const frames = ['slow-server', 'retry-storm', 'double-click'].filter((id) => scenarioIds().includes(id))
    .map((id, i) => `<iframe src="/lab/?sim=${id}&embed=1" title="Simulation ${i}" style="width:100%;height:300px;border:0;display:block"></iframe>`);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Chapter</title>
    <script src="/lab/embed.js" async></script></head><body style="margin:0;max-width:720px">
    <p>Before.</p>${frames.join('<p>Between.</p>')}<p>After.</p>
    <iframe id="other" srcdoc="<p>not a lab</p>" style="height:50px"></iframe></body></html>`;
  const host = await serve({ '/chapter.html': html });
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.goto(`${host.base}/chapter.html`);
  // A message from a window that is not one of the lab frames changes nothing.
  await page.evaluate(() => window.postMessage({ type: 'resilience-lab:height', height: 9999 }, '*'));
  // Every lab frame grows from its 300 px until its content fits without scrolling inside.
  await page.waitForFunction(() => [...document.querySelectorAll('iframe[src]')].every((f) => {
    const doc = f.contentDocument;
    return doc && doc.querySelector('main') && doc.documentElement.scrollHeight <= f.clientHeight + 1 && f.clientHeight > 300;
  }), null, { timeout: 20000 });
  assert.equal(await page.$eval('#other', (f) => f.style.height), '50px', 'a frame that is not a lab is left alone');
  await screenshot(page, 'embed-js-chapter');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  await host.close();
});

test('every README snippet, 720 px wide at its own fallback height, shows its headline chart whole without scrolling', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const snippets = [...readme.matchAll(/<iframe src="https:\/\/example\.org\/lab\/(\?[^"]+)"[^>]*?height:(\d+)px/gs)]
    .map((m) => ({ query: m[1], height: Number(m[2]) }))
    .filter(({ query }) => scenarioIds().includes(new URLSearchParams(query).get('sim')));
  assert.ok(snippets.length >= 5, `found ${snippets.length} snippets`);
  const cut = [];
  // One page, every snippet loaded at its own height (`viewAs`).
  const page = await openPage(browser, { width: 720, height: 900 });
  for (const { query, height } of snippets) {
    await viewAs(page, { width: 720, height });
    await page.goto(`${server.base}/${query}`);
    await ready(page);
    // The spreads under the headline cards arrive after the first render: measure after them.
    await page.waitForSelector('[data-spread-ms]:not([data-spread-ms=""])', { timeout: 30000 });
    const bottom = await page.$eval('.figure-chart figure', (f) => f.getBoundingClientRect().bottom);
    const id = await page.$eval('.figure-chart figure', (f) => f.id || f.className);
    if (bottom > height) cut.push(`${query}: the headline chart (${id}) ends at ${Math.round(bottom)} px of ${height}`);
    await screenshot(page, `embed-720-${new URLSearchParams(query).get('sim')}`);
    assert.deepEqual(page.problems(), [], query);
  }
  await page.context().close();
  assert.deepEqual(cut, []);
});

test('the figure, the full page and its footer carry the lab\'s version, as the CLI prints it', async () => {
  const version = cli(['--version']).trim().replace('resilience-lab ', '');
  const page = await openPage(browser);
  for (const query of ['?sim=cascade&embed=1', '?sim=cascade']) {
    await page.goto(`${server.base}/${query}`);
    await ready(page);
    assert.equal(await page.getAttribute('section.sim', 'data-version'), version, query);
  }
  // The full page's footer names it too (the embed has no footer).
  assert.equal(await page.getAttribute('.app-footer [data-version]', 'data-version'), version);
  assert.equal(await page.textContent('.app-footer [data-version]'), `Resilience Lab ${version}`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
