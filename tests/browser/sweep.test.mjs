// Up the ladder of abstraction: the spread of each headline number over seeds, and the sweep
// view (the whole curve, by option, over seeds), checked against the CLI's own sweep.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, setSlider, scenarios, skipToEnd, plain, cliRun } from './harness.mjs';

const cli = (...args) => cliRun(args);

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// What each headline card's spread says at the scenario's defaults (the page's wording over the
// 20 seeds' figures, which the test checks against the CLI's sweep): a snapshot.
const SPREADS = {
  'slow-server p99_ms_after_with_waiting': 'middle 80% of 20 seeds: 10,551–11,744',
  'slow-server p99_ms_before': 'middle 80% of 20 seeds: 44.7–78.3',
  'slow-server b_queue': 'middle 80% of 20 seeds: 541–595',
  'slow-server timed_out': '0 on 20 of 20 seeds',
  'cascade home_in_flight_end': '479 on 12 of 20 seeds',
  'cascade checkout_ok': '4 on 20 of 20 seeds',
  'cascade checkout_failed': '95 on 20 of 20 seeds',
  'cascade checkout_p99_ms_with_waiting': 'middle 80% of 20 seeds: 5,002',
  'deadline-chain user_answer_ms': 'middle 80% of 20 seeds: 2,008',
  'deadline-chain b_gives_up_ms': '2,512 on 20 of 20 seeds',
  'deadline-chain c_end_ms': 'middle 80% of 20 seeds: 3,514',
  'deadline-chain wasted_work_ms': 'middle 80% of 20 seeds: 1,514',
  'retry-storm peak_after_recovery': '40 on 14 of 20 seeds',
  'retry-storm waves_after_recovery': '5 on 16 of 20 seeds',
  'retry-storm recovered_ms': 'middle 80% of 20 seeds: 10,068–11,099',
  'retry-storm outage_traffic_vs_normal': 'middle 80% of 20 seeds: 1.4–1.6',
  'double-click card_charged': '3 on 20 of 20 seeds',
  'double-click server_requests': '3 on 20 of 20 seeds',
  'double-click timeouts_seen': '2 on 20 of 20 seeds',
  'which-timeout gave_up_ms': '301 s on 20 of 20 seeds',
  'which-timeout safe_to_retry_without_key': 'no on 20 of 20 seeds',
  'at-least-once lost': '0 on 20 of 20 seeds',
  'at-least-once duplicated': 'middle 80% of 20 seeds: 8–16',
  'at-least-once effectively_once': 'middle 80% of 20 seeds: 984–992',
  'at-least-once skipped_as_duplicate': '0 on 20 of 20 seeds',
  'choosing-numbers timeout_rate_pct': 'middle 80% of 20 seeds: 0–0.033',
  'choosing-numbers calls_per_request': 'middle 80% of 20 seeds: 1',
  'choosing-numbers route_p99_ms': 'middle 80% of 20 seeds: 167–181',
  'choosing-numbers worst_wait_ms': 'middle 80% of 20 seeds: 299–578',
};

/** The sweep view's reading, paragraph by paragraph, as the CLI's sweep of the page's state words it. */
async function sweepReadingIsTheCore(page) {
  const link = await page.$eval('[data-state-link], .share a', (a) => a.getAttribute('href'));
  const sweep = cli('sweep', '--url', link, '--json');
  const shown = await page.$$eval('[data-sweep-reading] p', (els) => els.map((p) => p.textContent));
  assert.deepEqual(shown.map(plain), sweep.reading.map(plain), `the sweep's reading of ${link}`);
  return sweep;
}
/** Where B's queue starts to grow without bound in a sweep of the slowdown (its knee, ×): B's share against what B serves slowed. */
const slowdownKnee = ({ workers, service_ms, rate, servers }) => (workers * 1000 / service_ms) / (rate / servers);

test('every headline stat card shows its spread over 20 seeds, equal to the CLI sweep of the same settings', async () => {
  const texts = {};
  for (const s of scenarios()) {
    const page = await openPage(browser);
    await page.goto(`${server.base}/?sim=${s.id}`);
    await ready(page);
    // A page that asks a question hides its spreads until the run has answered it.
    await skipToEnd(page);
    const x = s.params.find((p) => p.kind === 'number');
    const run = cli('run', s.id, '--json');
    let shown = 0;
    for (const key of s.headline) {
      // A metric that is words (a text outcome) has no spread: the CLI does not sweep it either.
      if (typeof run.metrics[key] === 'string') {
        assert.equal(await page.$eval(`[data-spread="${key}"]`, (e) => e.textContent.trim()).catch(() => ''), '', `${s.id} ${key}: words, no spread`);
        continue;
      }
      const [expected] = cli('sweep', s.id, '--x', `${x.id}=${x.default}..${x.default}:1`, '--seeds', '20', '--metric', key, '--json').summary;
      if (expected.n === 0) continue; // no number on any seed: no spread
      const sel = `[data-spread="${key}"][data-n="20"]`;
      await page.waitForSelector(sel, { timeout: 30000 });
      const got = await page.$eval(sel, (e) => ({ median: Number(e.dataset.median), p10: Number(e.dataset.p10), p90: Number(e.dataset.p90), text: e.textContent }));
      // The CLI prints each figure rounded to 0.1, as the metrics are; the card keeps it exact.
      const tenth = (v) => Math.round(v * 10) / 10;
      assert.deepEqual([got.median, got.p10, got.p90].map(tenth), [expected.median, expected.p10, expected.p90], `${s.id} ${key}`);
      texts[`${s.id} ${key}`] = got.text.trim();
      shown += 1;
    }
    assert.ok(shown > 0, `${s.id}: no headline spread`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
  assert.deepEqual(texts, SPREADS, 'each spread says what it is: the middle 80% of the 20 seeds, or on how many of them a count comes out the same');
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
  // The reading is the core's: B's queue grows without bound from a slowdown of ×2 on.
  const sweep = await sweepReadingIsTheCore(page);
  assert.equal(sweep.x, 'slowdown');
  assert.equal(slowdownKnee(sweep.params), 2);
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
  const sweep = await sweepReadingIsTheCore(page);
  assert.equal(sweep.params.rate, 100);
  assert.equal(slowdownKnee(sweep.params), 3, 'the knee moved with the rate');
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
  assert.equal(new URL(url).searchParams.get('sweep_metric'), 'completed');
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
