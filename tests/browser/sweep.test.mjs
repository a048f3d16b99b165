// Up the ladder of abstraction: the spread of each headline number over seeds, and the sweep
// view (the whole curve, by option, over seeds), checked against the CLI's own sweep.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, openPage, ready, screenshot, setSlider, scenarios, skipToEnd } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = (...args) => JSON.parse(execFileSync('cargo', ['run', '--quiet', '--release', '--bin', 'resilience-lab', '--', ...args],
  { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('every headline stat card shows its spread over 20 seeds, equal to the CLI sweep of the same settings', async () => {
  for (const s of scenarios()) {
    const page = await openPage(browser);
    await page.goto(`${server.base}/?sim=${s.id}`);
    await ready(page);
    // A page that asks a question hides its spreads until the run has answered it.
    await skipToEnd(page);
    const x = s.params.find((p) => p.kind === 'number');
    let shown = 0;
    for (const key of s.headline) {
      let expected;
      try {
        [expected] = cli('sweep', s.id, '--x', `${x.id}=${x.default}..${x.default}:1`, '--seeds', '20', '--metric', key, '--json').summary;
      } catch (e) {
        // The CLI refuses a metric that is words (a text outcome): the card shows no spread either.
        if (/is words, not a number/.test(e.stderr)) continue;
        throw e;
      }
      if (expected.n === 0) continue; // no number on any seed: no spread
      const sel = `[data-spread="${key}"][data-n="20"]`;
      await page.waitForSelector(sel, { timeout: 30000 });
      const got = await page.$eval(sel, (e) => ({ median: Number(e.dataset.median), p10: Number(e.dataset.p10), p90: Number(e.dataset.p90), text: e.textContent }));
      // The CLI prints each figure rounded to 0.1, as the metrics are; the card keeps it exact.
      const tenth = (v) => Math.round(v * 10) / 10;
      assert.deepEqual([got.median, got.p10, got.p90].map(tenth), [expected.median, expected.p10, expected.p90], `${s.id} ${key}`);
      assert.match(got.text, /^(middle 80% of 20 seeds: |.+ on \d+ of 20 seeds$)/, `${s.id} ${key}: ${got.text}`);
      shown += 1;
    }
    assert.ok(shown > 0, `${s.id}: no headline spread`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

test('the sweep view draws the default curve, marks the reader\'s setting and reads the knee', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&sweep=slowdown`);
  await ready(page);
  await page.waitForSelector('[data-sweep-progress="done"]', { timeout: 30000 });
  const legend = await page.$$eval('#chart-sweep .legend li', (els) => els.map((e) => e.textContent));
  assert.deepEqual(legend, ['Round robin', 'Random', 'Least outstanding', 'Two choices']);
  const labels = await page.$eval('#chart-sweep canvas', (c) => JSON.parse(c.dataset.labels).map((l) => l.text));
  assert.ok(labels.includes('your setting'), `labels: ${labels}`);
  assert.match(await page.textContent('[data-sweep-reading]'), /from a slowdown of ×2 on/);
  await screenshot(page, 'sweep-slow-server');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('moving a slider drops the stale curve at once and computes the new one', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&sweep=slowdown&sweep_seeds=1`);
  await ready(page);
  await page.waitForSelector('[data-sweep-progress="done"]', { timeout: 30000 });
  await setSlider(page, 'rate', 100);
  // The old curve goes before the new one is computed: no stale point is drawn.
  await page.waitForFunction(() => document.querySelector('[data-sweep-progress]').dataset.sweepProgress !== 'done'
    && document.querySelectorAll('#chart-sweep .legend li').length === 0);
  await page.waitForSelector('[data-sweep-progress="done"]', { timeout: 30000 });
  assert.match(await page.textContent('[data-sweep-reading]'), /from a slowdown of ×3 on/, 'the knee moved with the rate');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('the sweep lives in the URL and comes back from it', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server`);
  await ready(page);
  await page.click('[data-action="sweep"]');
  await page.selectOption('select[name="sweep_x"]', 'rate');
  await page.selectOption('select[name="sweep_metric"]', 'completed');
  await page.selectOption('select[name="sweep_seeds"]', '3');
  await page.waitForFunction(() => location.search.includes('sweep=rate') && location.search.includes('sweep_seeds=3'));
  const url = await page.evaluate(() => location.href);
  assert.match(url, /sweep_metric=completed/);
  const again = await openPage(browser);
  await again.goto(url);
  await ready(again);
  assert.equal(await again.inputValue('select[name="sweep_x"]'), 'rate');
  assert.equal(await again.inputValue('select[name="sweep_metric"]'), 'completed');
  assert.equal(await again.inputValue('select[name="sweep_seeds"]'), '3');
  assert.deepEqual(page.problems(), []);
  assert.deepEqual(again.problems(), []);
  await page.context().close();
  await again.context().close();
});

test('the sweep fits a 360 px phone, and an embed shows it only when its controls name it', async () => {
  const page = await openPage(browser, { width: 360, height: 800 });
  await page.goto(`${server.base}/?sim=slow-server&sweep=rate&sweep_seeds=1`);
  await ready(page);
  await page.waitForSelector('[data-sweep-progress="done"]', { timeout: 30000 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scroll');
  await screenshot(page, 'sweep-slow-server-phone');
  await page.goto(`${server.base}/?sim=slow-server&embed=1&controls=policy,sweep`);
  await ready(page);
  assert.equal(await page.$$eval('[data-action="sweep"]', (els) => els.length), 1);
  await page.goto(`${server.base}/?sim=slow-server&embed=1&controls=policy`);
  await ready(page);
  assert.equal(await page.$$eval('[data-action="sweep"]', (els) => els.length), 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('New seed draws a seed in the browser and the URL follows', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server`);
  await ready(page);
  await page.click('details:has([data-action="new-seed"]) summary');
  await page.click('[data-action="new-seed"]');
  const seed = await page.inputValue('input[name="seed"]');
  assert.notEqual(seed, '1');
  await page.waitForFunction((s) => location.search.includes(`seed=${s}`), seed);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
