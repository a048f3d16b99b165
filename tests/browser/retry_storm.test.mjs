import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, stat } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const CAPACITY = 8;

/** Clicks a preset, skips to the end, and reads the stats the chapter compares. */
async function runPreset(page, id) {
  await page.click(`[data-preset="${id}"]`);
  await page.click('[data-action="skip"]');
  await page.waitForFunction(() => document.querySelector('[data-stat="peak_after_recovery"]').dataset.value !== '');
  return {
    peak: await stat(page, 'peak_after_recovery'),
    recovered: await stat(page, 'recovered_ms'),
    waves: await stat(page, 'waves_after_recovery'),
  };
}

/** A compare column's peak (its own stat card, inside [data-compare="<mode>"]). */
async function columnPeak(page, mode) {
  const v = await page.getAttribute(`[data-compare="${mode}"] [data-stat="peak_after_recovery"]`, 'data-value');
  return v === null || v === '' ? null : Number(v);
}

test('retry-storm: switching the mode changes the displayed peak', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=retry-storm`);
  await ready(page);
  assert.equal(await page.getAttribute('[data-mode="fixed"]', 'aria-pressed'), 'true');
  await page.click('[data-action="skip"]');
  const fixed = await stat(page, 'peak_after_recovery');
  await page.click('[data-mode="jitter"]');
  assert.equal(await page.getAttribute('[data-mode="jitter"]', 'aria-pressed'), 'true');
  // The panel's segmented choice follows the prominent switch.
  assert.equal(await page.isChecked('input[name="mode"][value="jitter"]'), true);
  await page.click('[data-action="skip"]');
  const jitter = await stat(page, 'peak_after_recovery');
  assert.ok(Number.isFinite(fixed) && Number.isFinite(jitter), `fixed ${fixed}, jitter ${jitter}`);
  assert.notEqual(fixed, jitter);
  await page.waitForFunction(() => location.search.includes('mode=jitter'), null, { timeout: 5000 });
  // And back through the panel's radio.
  await page.click('label:has(> input[name="mode"][value="fixed"])');
  await page.click('[data-action="skip"]');
  assert.equal(await stat(page, 'peak_after_recovery'), fixed);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the three presets give fixed ≥ exponential > jitter, jitter near capacity', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=retry-storm`);
  await ready(page);
  const fixed = await runPreset(page, 'fixed');
  const exponential = await runPreset(page, 'exponential');
  const jitter = await runPreset(page, 'jitter');
  const runs = JSON.stringify({ fixed, exponential, jitter });
  // Fixed and exponential both let the first synchronised wave hold every client (they tie
  // at 40 with the defaults); jitter breaks it up.
  assert.ok(fixed.peak >= exponential.peak, runs);
  assert.ok(exponential.peak > jitter.peak, runs);
  assert.ok(fixed.peak >= 3 * CAPACITY, runs);
  assert.ok(exponential.peak >= 3 * CAPACITY, runs);
  assert.ok(jitter.peak <= 1.5 * CAPACITY, runs);
  // Exponential's waves are spaced further apart, so its clients finish retrying later than
  // fixed's; jitter finishes first.
  assert.ok(exponential.recovered > fixed.recovered, runs);
  assert.ok(jitter.recovered < fixed.recovered, runs);
  assert.ok(fixed.waves >= 2 && exponential.waves >= 2, runs);
  // The peak card says it against the capacity.
  const note = await page.textContent('[data-stat="peak_after_recovery"] .note');
  assert.match(note, new RegExp(`×${(jitter.peak / CAPACITY).toFixed(1)} of capacity`));
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: three layers × 3 make 27 calls for one user action', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=retry-storm&preset=three-layers`);
  await ready(page);
  await page.click('[data-action="skip"]');
  assert.equal(await stat(page, 'max_calls_per_user_action'), 27);
  assert.match(await page.textContent('[data-stat="max_calls_per_user_action"] .note'), /3 × 3 × 3 = 27/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the compare view shows the three modes side by side on the same seed', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=retry-storm`);
  await ready(page);
  // The single runs, for reference.
  const single = {};
  for (const mode of ['fixed', 'exponential', 'jitter']) single[mode] = (await runPreset(page, mode)).peak;

  await page.click('[data-action="compare"]');
  assert.equal(await page.getAttribute('[data-action="compare"]', 'aria-pressed'), 'true');
  const columns = await page.$$eval('[data-compare]', (els) => els.map((e) => e.dataset.compare));
  assert.deepEqual(columns, ['fixed', 'exponential', 'jitter']);
  // The main run is at its end, so the three columns are too.
  const peaks = {};
  for (const mode of columns) peaks[mode] = await columnPeak(page, mode);
  assert.deepEqual(peaks, single, `compare ${JSON.stringify(peaks)} vs single runs ${JSON.stringify(single)}`);
  assert.ok(peaks.fixed >= peaks.exponential && peaks.exponential > peaks.jitter, JSON.stringify(peaks));
  // The column of the selected mode is marked.
  assert.match(await page.getAttribute('[data-compare="jitter"]', 'class'), /current/);

  // Reset: all three start over with the main clock; play a little and they advance together.
  await page.click('[data-action="reset"]');
  assert.equal(await columnPeak(page, 'fixed'), null);
  await page.click('[data-action="skip"]');
  assert.equal(await columnPeak(page, 'fixed'), single.fixed);

  await page.waitForTimeout(300);
  await screenshot(page, 'retry-storm-compare-desktop');
  const phone = await openPage(browser, { width: 390, height: 844, colorScheme: 'dark' });
  await phone.goto(`${server.base}/?sim=retry-storm`);
  await ready(phone);
  await phone.click('[data-action="compare"]');
  await phone.click('[data-action="skip"]');
  await phone.waitForTimeout(300);
  const width = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `page is ${width}px wide on a 390px screen`);
  await screenshot(phone, 'retry-storm-compare-phone-dark');

  await page.click('[data-action="compare"]');
  assert.equal(await page.$('[data-compare]'), null);
  assert.deepEqual(page.problems(), []);
  assert.deepEqual(phone.problems(), []);
  await phone.context().close();
  await page.context().close();
});

test('retry-storm: play runs live, the client dots follow the states', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=retry-storm&speed=8`);
  await ready(page);
  assert.equal(await page.$$eval('.clients-strip .dots .dot', (d) => d.length), 40);
  await page.click('[data-action="play"]');
  // Just after the outage starts every client that was in a call is waiting to retry.
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 2.5, null, { timeout: 20000 });
  await page.click('[data-action="pause"]');
  const waiting = await page.$$eval('.clients-strip .dots .dot.waiting', (d) => d.length);
  assert.ok(waiting >= 20, `${waiting} clients waiting to retry during the outage`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm screenshots: desktop and phone, light and dark', async () => {
  for (const [w, h, name] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
    for (const scheme of ['light', 'dark']) {
      const page = await openPage(browser, { width: w, height: h, colorScheme: scheme });
      await page.goto(`${server.base}/?sim=retry-storm`);
      await ready(page);
      await page.click('[data-action="skip"]');
      await page.waitForTimeout(300);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= w, `page is ${width}px wide on a ${w}px screen`);
      await screenshot(page, `retry-storm-${name}-${scheme}`);
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});
