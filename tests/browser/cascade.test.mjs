// The cascade page (Chapter 1 Part 3, "The measured run"): each fix shows the chapter's table
// row, the pools are drawn slot by slot, and the guided mode walks the chapter's seven moments
// of the real run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, stat, setSlider } from './harness.mjs';

// The chapter's timeline (GUIDED_STEPS in src/scenarios/cascade.rs): time and title per step.
const STEPS = [
  [0, 'Recommendations stops answering'],
  [0.2, 'Hung calls pile up'],
  [0.43, 'The pool is full'],
  [0.51, '/checkout starts waiting'],
  [5.51, 'The first checkout fails'],
  [10, 'The load stops'],
  [15.01, 'The last checkout fails'],
];

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const near = (actual, expected, tol, what) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tol, `${what}: ${actual}, expected ${expected} ± ${tol}`);

async function open(query, options) {
  const page = await openPage(browser, options);
  await page.goto(`${server.base}/?sim=cascade${query}`);
  await ready(page);
  await page.waitForSelector('[data-guided-step]');
  return page;
}

const slots = (page, pool, kind) => page.$$eval(`[data-pool="${pool}"] .slots .slot${kind ? '.' + kind : ''}`, (els) => els.length);
const guidedStep = async (page) => Number(await page.getAttribute('[data-guided-step]', 'data-guided-step'));
const runRow = (page) => page.textContent('[data-run-row]');

test('no-timeout: the chapter\'s row (479 in flight, growing 48/s, 4 ok, 95 failed), a pool full of hung calls', async () => {
  const page = await open('&preset=no-timeout');
  await page.click('[data-action="skip"]');
  near(await stat(page, 'home_in_flight_end'), 479, 5, '/home in flight');
  near(await stat(page, 'home_in_flight_growth_per_s'), 48, 2, 'growth');
  assert.equal(await stat(page, 'checkout_ok'), 4);
  assert.equal(await stat(page, 'checkout_failed'), 95);
  near(await stat(page, 'checkout_p99_ms'), 5000, 10, 'p99 (a failure counts as its 5 s)');
  assert.equal(await stat(page, 'pool_in_use_max'), 20);
  assert.equal(await stat(page, 'downstream_open_connections_max'), 20);
  assert.equal(await slots(page, 'shared'), 20);
  assert.equal(await slots(page, 'shared', 'recs'), 20);
  assert.equal(await page.$('[data-pool="recs"]'), null, 'no second pool without a bulkhead');
  const row = await runRow(page);
  assert.match(row, /479, growing about 48 per second/);
  assert.match(row, /4 of 99 \(the first 0\.4 s\)/);
  assert.match(row, /95$/);
  assert.match(await page.textContent('[data-stat="checkout_ok"]'), /of 99 sent \(those sent in the first 0\.4 s\)/);
  assert.equal(await page.getAttribute('[data-variant="no-timeout"]', 'aria-pressed'), 'true');
  await screenshot(page, 'cascade-no-timeout-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('timeout: 15 in flight and flat, 99 of 99, p99 about 10 ms, 0 failed', async () => {
  const page = await open('&preset=timeout');
  await page.click('[data-action="skip"]');
  near(await stat(page, 'home_in_flight_end'), 15, 2, '/home in flight');
  near(await stat(page, 'home_in_flight_growth_per_s'), 0, 1, 'growth');
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await stat(page, 'checkout_failed'), 0);
  near(await stat(page, 'checkout_p99_ms'), 10, 1.5, 'p99');
  assert.equal(await slots(page, 'shared', 'recs'), 0, 'no hung call keeps a connection');
  const row = await runRow(page);
  assert.match(row, /15, flat/);
  assert.match(row, /99 of 99, p99 10 ms/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('bulkhead: about 480 and still growing, 99 of 99, p99 about 11 ms; two pools drawn', async () => {
  const page = await open('&preset=bulkhead', { width: 390, height: 844, colorScheme: 'dark' });
  await page.click('[data-action="skip"]');
  near(await stat(page, 'home_in_flight_end'), 480, 5, '/home in flight');
  near(await stat(page, 'home_in_flight_growth_per_s'), 48, 2, 'growth');
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await stat(page, 'checkout_failed'), 0);
  near(await stat(page, 'checkout_p99_ms'), 11, 1.5, 'p99');
  assert.equal(await slots(page, 'recs'), 20);
  assert.equal(await slots(page, 'recs', 'recs'), 20, 'the bulkhead is full of hung calls');
  assert.equal(await slots(page, 'shared', 'recs'), 0, 'the shared pool holds none');
  assert.match(await runRow(page), /99 of 99, p99 1\d ms/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `page is ${width}px wide on a 390px screen`);
  await screenshot(page, 'cascade-bulkhead-phone-dark');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('the fix picker rebuilds the run at the same moment and sets the URL', async () => {
  const page = await open('');
  await page.click('[data-action="skip"]');
  assert.equal(await stat(page, 'checkout_failed'), 95);
  await page.click('[data-variant="timeout"]');
  near(await stat(page, 'time_s'), 15.5, 0.01, 'time after switching');
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await page.getAttribute('[data-variant="timeout"]', 'aria-pressed'), 'true');
  assert.equal(await page.isChecked('input[name="variant"][value="timeout"]'), true, 'the side panel follows');
  await page.waitForFunction(() => location.search.includes('preset=timeout'), null, { timeout: 5000 });
  // A slider change shows in the picker's text.
  await setSlider(page, 'recs_timeout_ms', 1000);
  assert.match(await page.textContent('[data-variant="timeout"]'), /1000 ms on recommendations/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('guided mode: 1 / 7 to 7 / 7 and back, each step the real run at the chapter\'s moment', async () => {
  const page = await open('');
  assert.equal(await guidedStep(page), 1);
  assert.equal(await page.isDisabled('[data-action="guided-back"]'), true);
  assert.match(await page.textContent('[data-guided]'), /stops answering at 0 s/);
  const seen = new Set();
  for (let i = 1; i < STEPS.length; i++) {
    await page.click('[data-action="guided-next"]');
    const [t, title] = STEPS[i];
    assert.equal(await guidedStep(page), i + 1);
    assert.equal((await page.textContent('[data-guided-step]')).trim(), `${i + 1} / 7`);
    near(await stat(page, 'time_s'), t, 1e-6, `time at step ${i + 1}`);
    assert.match(await page.textContent('[data-guided] h2'), new RegExp(title.replace('/', '\\/')));
    const explanation = await page.textContent('[data-guided-explanation]');
    assert.ok(explanation.length > 40 && !seen.has(explanation), `step ${i + 1} explanation: ${explanation}`);
    seen.add(explanation);
    if (i + 1 === 3) {
      assert.equal(await slots(page, 'shared', 'recs'), 20, 'step 3: the pool is full of hung calls');
      await screenshot(page, 'cascade-guided-step3-desktop-light');
    }
    if (i + 1 === 6) assert.match(await page.textContent('[data-guided]'), /479 in flight/);
  }
  assert.equal(await page.isDisabled('[data-action="guided-next"]'), true);
  assert.equal(await stat(page, 'checkout_failed'), 95);
  for (let i = STEPS.length - 2; i >= 0; i--) {
    await page.click('[data-action="guided-back"]');
    assert.equal(await guidedStep(page), i + 1);
    near(await stat(page, 'time_s'), STEPS[i][0], 1e-6, `time back at step ${i + 1}`);
  }
  assert.equal(await stat(page, 'checkout_failed'), 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('guided mode on a phone in dark mode, and with another fix', async () => {
  const page = await open('', { width: 390, height: 844, colorScheme: 'dark' });
  for (let i = 0; i < 3; i++) await page.click('[data-action="guided-next"]');
  assert.equal(await guidedStep(page), 4);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `page is ${width}px wide on a 390px screen`);
  await screenshot(page, 'cascade-guided-step4-phone-dark');
  // Another fix at the same moment: the note says so, and one click goes back to the chapter's run.
  await page.click('[data-variant="timeout"]');
  near(await stat(page, 'time_s'), 0.51, 1e-6, 'same moment');
  assert.equal(await guidedStep(page), 4);
  assert.match(await page.textContent('[data-guided]'), /You are watching Timeout/);
  await page.click('[data-action="guided-chapter"]');
  assert.equal(await page.getAttribute('[data-variant="no-timeout"]', 'aria-pressed'), 'true');
  assert.equal(await page.$('[data-action="guided-chapter"]'), null);
  near(await stat(page, 'time_s'), 0.51, 1e-6, 'still the same moment');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('guided step on a phone in light mode; desktop dark at the end', async () => {
  let page = await open('', { width: 390, height: 844 });
  for (let i = 0; i < 4; i++) await page.click('[data-action="guided-next"]');
  assert.equal(await guidedStep(page), 5);
  await screenshot(page, 'cascade-guided-step5-phone-light');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  page = await open('', { colorScheme: 'dark' });
  await page.click('[data-action="skip"]');
  assert.equal(await guidedStep(page), 7, 'the guided step follows the clock');
  await screenshot(page, 'cascade-no-timeout-desktop-dark');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('unbounded pool: 480 hung calls become 480 open connections, drawn small', async () => {
  const page = await open('&preset=unbounded-pool');
  await page.click('[data-action="skip"]');
  near(await stat(page, 'downstream_open_connections_max'), 480, 5, 'downstream connections');
  assert.equal(await stat(page, 'checkout_failed'), 0);
  const drawn = await slots(page, 'shared');
  near(drawn, 481, 5, 'slots drawn');
  assert.ok(await page.$('[data-pool="shared"] .slots.tiny'), 'many slots are drawn small');
  await screenshot(page, 'cascade-unbounded-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('pool_size at its maximum: 200 slots fit a phone', async () => {
  const page = await open('&pool_size=200', { width: 390, height: 844 });
  await page.click('[data-action="skip"]');
  assert.equal(await slots(page, 'shared'), 200);
  assert.equal(await slots(page, 'shared', 'recs'), 200);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `page is ${width}px wide on a 390px screen`);
  await screenshot(page, 'cascade-pool200-phone');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('playing moves the guided step with the clock; the home page lists the scenario and its presets', async () => {
  const page = await open('&speed=8');
  await page.click('[data-action="play"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 1.5, null, { timeout: 20000 });
  await page.click('[data-action="pause"]');
  assert.equal(await guidedStep(page), 4, 'past 0.51 s and before 5.51 s');
  assert.ok((await stat(page, 'home_in_flight_end')) > 50);
  await page.goto(`${server.base}/`);
  await ready(page);
  const presets = await page.$$eval('[data-scenario="cascade"] a.button', (els) => els.map((e) => new URL(e.href).searchParams.get('preset')));
  assert.deepEqual(presets, ['no-timeout', 'timeout', 'bulkhead', 'both', 'unbounded-pool']);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
