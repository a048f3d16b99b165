// Issue 23: a page or embed of one simulation downloads that simulation's module only, and the
// home page downloads none. Checked on the network: every request the page makes is recorded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, ready, scenarioIds, dist } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/**
 * Opens `path` and returns the page with the paths of the JS and wasm files it requested, and of
 * the HTML fragments (the home page's list).
 */
async function openRecording(path) {
  const page = await openPage(browser);
  const code = [];
  const fragments = [];
  const styles = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (/\.(js|wasm)$/.test(url.pathname)) code.push(url.pathname);
    if (url.pathname.endsWith('.css')) styles.push(url.pathname);
    if (/\/home-[0-9a-f]+\.html$/.test(url.pathname)) fragments.push(url.pathname);
  });
  await page.goto(`${server.base}${path}`);
  await ready(page);
  return { page, code, fragments, styles };
}

for (const base of ['/', '/lab/']) {
  for (const id of scenarioIds()) {
    for (const embed of ['', '&embed=1']) {
      test(`${base}?sim=${id}${embed} loads ${id}'s module and no other`, async () => {
        const { page, code, fragments, styles } = await openRecording(`${base}?sim=${id}${embed}`);
        await page.waitForSelector('[data-action="play"]:not([disabled])');
        assert.equal(code.filter((p) => p.endsWith('.wasm')).length, 1, `one module: ${code}`);
        assert.deepEqual(fragments, [], "not the home page's list");
        assert.equal(styles.length, 1, `one style sheet: ${styles}`);
        assert.match(styles[0], new RegExp(`^${base}${id}/style-[0-9a-f]+\\.css$`), "the simulation's own style sheet");
        for (const path of code) assert.ok(path.startsWith(`${base}${id}/`), `${path} is ${id}'s`);
        assert.equal(await page.locator('.app-header').count(), embed ? 0 : 1, 'the header only outside the embed');
        // The footer follows the page the module drew.
        assert.equal(await page.locator('main + footer.app-footer').count(), embed ? 0 : 1);
        assert.equal(await page.locator('main').count(), 1, 'the home page is gone');
        assert.deepEqual(page.problems(), []);
        await page.context().close();
      });
    }
  }

  test(`${base}: the home page loads no module and lists every simulation`, async () => {
    const { page, code, fragments, styles } = await openRecording(base);
    assert.deepEqual(code, []);
    assert.equal(styles.length, 1, `one style sheet: ${styles}`);
    assert.match(styles[0], new RegExp(`^${base}style-[0-9a-f]+\\.css$`), "the home page's style sheet");
    assert.equal(fragments.length, 1, `the list, once: ${fragments}`);
    assert.equal(await page.getAttribute('[data-cards]', 'aria-busy'), null, 'the list is no longer busy');
    const cards = await page.$$eval('.cards [data-scenario]', (els) => els.map((e) => e.dataset.scenario));
    assert.deepEqual(cards, scenarioIds());
    const nav = await page.$$eval('.app-header nav a', (els) => els.map((a) => new URL(a.href).searchParams.get('sim')));
    assert.deepEqual(nav, scenarioIds());
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test("when the home page's list cannot be fetched, the page says so and the header still links every simulation", async () => {
  const page = await openPage(browser);
  await page.route(/\/home-[0-9a-f]+\.html$/, (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  await page.goto(`${server.base}/`);
  await page.waitForSelector('[data-cards-failed]');
  assert.equal((await page.textContent('[data-cards-failed]')).trim(), 'The list of simulations could not be loaded; the links above open each one.');
  assert.equal(await page.locator('[data-cards]').count(), 0);
  const nav = await page.$$eval('.app-header nav a', (els) => els.map((a) => new URL(a.href).searchParams.get('sim')));
  assert.deepEqual(nav, scenarioIds());
  // The browser reports the failed response (503) as a console error; nothing else goes wrong.
  assert.deepEqual(page.problems().filter((p) => !p.includes('503')), []);
  await page.context().close();
});

test('an unknown simulation loads no module: the home page with a notice, the id as text', async () => {
  const { page, code } = await openRecording(`/?sim=${encodeURIComponent('<b>nope</b>')}`);
  assert.deepEqual(code, []);
  const notice = await page.textContent('[data-notices]');
  assert.ok(notice.includes(`Unknown simulation '<b>nope</b>'; showing the list instead. Known: ${scenarioIds().join(', ')}.`), notice);
  assert.equal(await page.$$eval('[data-notices] b', (els) => els.length), 0, 'inserted as text, never as HTML');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// The modules parse and write decimals with src/sim/decimal.rs and the browser's own
// Number.prototype.toString, not with core's float parser and formatter: their tables (the parser's
// powers of five, Grisu's cached powers of ten) cost every page 12-18 KB gzipped. One
// `str::parse::<f64>` or `format!("{}", x)` with a float in the browser's code brings them back.
test('no module carries core\'s float parser or formatter', () => {
  const firstEntry = (hex) => Buffer.from(hex, 'hex').reverse(); // a u64, little-endian
  const tables = { "dec2flt's powers of five": firstEntry('eef453d6923bd65a'), "grisu's cached powers": firstEntry('e61acf033d1a45df') };
  for (const id of scenarioIds()) {
    const file = readdirSync(join(dist, id)).find((f) => f.endsWith('_bg.wasm'));
    const bytes = readFileSync(join(dist, id, file));
    for (const [name, entry] of Object.entries(tables)) assert.equal(bytes.indexOf(entry), -1, `${id}'s module holds ${name}`);
  }
});

// scripts/names.mjs: wasm-bindgen's names with their 16-digit hashes, in both the glue and the
// module, cost each page about 6 KB gzipped; the pages above load with the short names.
test('no module or glue carries wasm-bindgen\'s hashed names or custom sections', () => {
  for (const id of scenarioIds()) {
    const files = readdirSync(join(dist, id));
    const glue = readFileSync(join(dist, id, files.find((f) => f.endsWith('.js'))), 'utf8');
    assert.doesNotMatch(glue, /__wbg_\w*[0-9a-f]{16}|resilience-lab-web_bg\.js/, `${id}'s glue`);
    const wasm = readFileSync(join(dist, id, files.find((f) => f.endsWith('_bg.wasm'))));
    const module = new WebAssembly.Module(wasm);
    const names = [...WebAssembly.Module.imports(module), ...WebAssembly.Module.exports(module)].map((i) => i.name);
    assert.deepEqual(names.filter((n) => /[0-9a-f]{16}/.test(n)), [], `${id}'s module`);
    assert.deepEqual(WebAssembly.Module.customSections(module, 'producers'), [], `${id}'s module`);
  }
});
