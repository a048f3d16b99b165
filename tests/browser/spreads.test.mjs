// The spreads under the headline cards say what they are, read as the metric reads, never answer
// the page's open question, and in the compare view belong to each column's own settings
// (issue 24: a reader found each of these false).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, skipToEnd, playUntil } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const spreadTexts = (page) => page.$$eval('[data-spread]', (els) => els.map((e) => [e.dataset.spread, e.textContent.trim()]));
const spreadsDone = (page) => page.waitForSelector('[data-spread-ms]:not([data-spread-ms=""])', { timeout: 60000 });
const note = async (page) => (await page.textContent('.spread-note')).trim();
// A time in seconds as the page writes it (format::secs): "0.06 s", "1.5 s", "1,200 s".
const secs = (s) => (Math.abs(s) >= 1000 ? `${Math.round(s).toLocaleString('en-US')} s` : `${s.toFixed(2).replace(/0+$/, '').replace(/\.$/, '')} s`);
/**
 * The note once the spreads show, word for word: the same settings on 20 seeds, and the time
 * they took (its data-spread-ms, to a tenth of a ms; either rounding of the time it stands for).
 */
async function revealedNotes(page) {
  const ms = Number(await page.getAttribute('.spread-note', 'data-spread-ms'));
  return [ms - 0.05, ms, ms + 0.05].map((t) => `Ranges under the cards: the same settings on 20 seeds (20 runs in ${secs(t / 1000)}): is this run typical, or luck?`);
}

for (const [sim, question] of [['slow-server', 'a prediction'], ['double-click', 'a question'], ['at-least-once', 'a question'], ['which-timeout', 'a question']]) {
  test(`${sim}: before the run answers ${question}, no spread under the cards gives the answer away`, async () => {
    const page = await openPage(browser);
    await page.goto(`${server.base}/?sim=${sim}`);
    await ready(page);
    await spreadsDone(page); // the 20 seeds have run: only the question holds them back
    assert.deepEqual((await spreadTexts(page)).filter(([, t]) => t !== ''), [], `${sim}: spreads shown before Play`);
    assert.equal(await note(page), 'Ranges over 20 seeds appear under the cards once the question above is answered.');
    await skipToEnd(page);
    await page.waitForFunction(() => [...document.querySelectorAll('[data-spread]')].some((e) => e.textContent.trim() !== ''));
    const shown = await note(page);
    assert.ok((await revealedNotes(page)).includes(shown), `${sim}: ${shown}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('slow-server: answering the prediction once the slowdown has shown reveals the spreads', async () => {
  const page = await openPage(browser);
  await page.clock.install();
  await page.goto(`${server.base}/?sim=slow-server&speed=64`);
  await ready(page);
  await spreadsDone(page);
  await page.check('input[name="prediction"][value="explodes"]');
  // Played on the page's own clock until the answer shows.
  await playUntil(page, () => document.querySelector('[data-answer]') !== null);
  await page.waitForFunction(() => document.querySelector('[data-spread="p99_ms_after_with_waiting"]')?.textContent.trim() !== '');
  // The 10th to the 90th percentile of p99 after the slowdown (the waiting counted) over the 20 seeds (the settings
  // are the defaults: speed only changes the clock).
  const sel = '[data-spread="p99_ms_after_with_waiting"]';
  assert.equal((await page.textContent(sel)).trim(), 'middle 80% of 20 seeds: 10,551–11,744');
  assert.deepEqual(await page.$eval(sel, (e) => [e.dataset.n, Math.round(e.dataset.p10), Math.round(e.dataset.p90)]), ['20', 10551, 11744]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('a spread says what its range is; a count reads in whole numbers; a yes/no reads as yes or no', async () => {
  const page = await openPage(browser, { width: 360, height: 800 });
  await page.goto(`${server.base}/?sim=retry-storm`);
  await ready(page);
  await skipToEnd(page);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-spread]')].every((e) => e.textContent.trim() !== ''));
  // Each says what it is: the middle 80% of the 20 seeds, or on how many of them a count comes
  // out the same. peak_after_recovery is a count of calls: it reads in whole numbers.
  assert.deepEqual(await spreadTexts(page), [
    ['peak_after_recovery', '40 on 14 of 20 seeds'],
    ['waves_after_recovery', '5 on 16 of 20 seeds'],
    ['recovered_ms', 'middle 80% of 20 seeds: 10,068–11,099'],
    ['outage_traffic_vs_normal', 'middle 80% of 20 seeds: 1.4–1.6'],
  ]);
  assert.deepEqual(await page.$$eval('[data-spread]', (els) => els.map((e) => e.dataset.n)), ['20', '20', '20', '20']);
  await screenshot(page, 'spreads-retry-storm-360');
  await page.goto(`${server.base}/?sim=which-timeout&preset=fetch-silent`);
  await ready(page);
  await skipToEnd(page, 60000);
  // safe_to_retry_without_key is a yes/no: its spread says yes or no, never '1 on 20 of 20 seeds'.
  const sel = '[data-spread="safe_to_retry_without_key"]';
  await page.waitForFunction((s) => document.querySelector(s)?.textContent.trim() !== '', sel);
  assert.equal((await page.textContent(sel)).trim(), 'no on 20 of 20 seeds');
  assert.deepEqual(await page.$eval(sel, (e) => [e.dataset.median, e.dataset.p10, e.dataset.p90]), ['0', '0', '0'], 'no (0) on every seed');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm compare view: each column shows the spread of its own mode, not the page\'s', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=retry-storm&preset=fixed`);
  await ready(page);
  await skipToEnd(page);
  await page.click('[data-action="compare"]');
  const sel = (mode) => `[data-compare="${mode}"] [data-spread="peak_after_recovery"]`;
  await page.waitForFunction((sels) => sels.every((s) => document.querySelector(s)?.dataset.median), ['fixed', 'jitter'].map(sel), { timeout: 60000 });
  const median = (s) => page.getAttribute(s, 'data-median').then(Number);
  const [fixed, jitter, main] = [await median(sel('fixed')), await median(sel('jitter')), await median('.stats > [data-stat="peak_after_recovery"] [data-spread]')];
  assert.equal(fixed, main, 'the fixed column has the page\'s settings');
  assert.ok(jitter < fixed, `jitter's own spread (median ${jitter}) is not fixed's (${fixed})`);
  await screenshot(page, 'spreads-compare');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
