import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarios, screenshot, stat, untilFinished, coreRun, plain, says, playUntil, pastSeconds } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const CAPACITY = 8;

async function open(query = '', viewport = {}, { fakeClock = false } = {}) {
  const page = await openPage(browser, viewport);
  if (fakeClock) await page.clock.install();
  await page.goto(`${server.base}/?sim=retry-storm${query}`);
  await ready(page);
  return page;
}

/** Skips to the end and waits until the run is there. */
async function skip(page) {
  await page.click('[data-action="skip"]');
  await untilFinished(page);
}

/** Clicks a preset, skips to the end, and reads the stats the chapter compares. */
async function runPreset(page, id) {
  await page.click(`[data-preset="${id}"]`);
  await skip(page);
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

// The page's sentences are compared with the core's run of the state the page shows
// (`coreRun`: its `reading` word for word); what a sentence claims is checked by value on the
// run's facts and metrics. No number is read out of a sentence.

/** The sentence `key` under the chart (`[data-reading="<key>"]`) is the core's. */
const readingSays = (page, run, key) => says(page, `.readings [data-reading="${key}"]`, run.reading[key], `the reading's ${key}`);

/** A stat card's note says the core's sentence `key` (and carries that key). */
const noteSays = (page, stat, run, key) => says(page, `[data-stat="${stat}"] .note[data-reading="${key}"]`, run.reading[key], `${stat}'s note`);

/** The declaration of retry-storm. */
const declaration = () => scenarios().find((s) => s.id === 'retry-storm');

test('retry-storm: one picker for the backoff, the panel\'s, and it changes the run', async () => {
  const page = await open();
  // No second row of mode buttons: the panel's radio group is the only control for the choice.
  assert.equal(await page.$('[data-mode]'), null);
  assert.equal(await page.$$eval('input[name="mode"]', (els) => els.length), 5);
  assert.equal(await page.isChecked('input[name="mode"][value="fixed"]'), true);
  await skip(page);
  const fixed = await stat(page, 'peak_after_recovery');
  const fixedRun = await coreRun(page);
  await readingSays(page, fixedRun, 'backoff');
  assert.equal(fixedRun.facts.backoff, 'fixed');
  assert.equal(fixedRun.facts.fixed_us, 1e6, 'every client waits the same 1 s');
  await page.click('label:has(> input[name="mode"][value="jitter"])');
  assert.equal(await page.isChecked('input[name="mode"][value="jitter"]'), true);
  await skip(page);
  const jitter = await stat(page, 'peak_after_recovery');
  assert.ok(Number.isFinite(fixed) && Number.isFinite(jitter), `fixed ${fixed}, jitter ${jitter}`);
  assert.ok(jitter < fixed, `fixed ${fixed}, jitter ${jitter}`);
  // What the backoff does, in words and the run's numbers, never in notation: the core's
  // sentence (its wording is the golden snapshot's, tests/golden/words/retry-storm.json).
  const jitterRun = await coreRun(page);
  await readingSays(page, jitterRun, 'backoff');
  assert.equal(jitterRun.facts.backoff, 'jitter');
  assert.equal(jitterRun.facts.base_us, 1e5, 'starts at 100 ms');
  assert.equal(jitterRun.facts.cap_us, 2e6, 'up to 2 s');
  await page.waitForFunction(() => location.search.includes('mode=jitter'), null, { timeout: 5000 });
  // Presets set the same control.
  await page.click('[data-preset="exponential"]');
  assert.equal(await page.isChecked('input[name="mode"][value="exponential"]'), true);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: fixed and exponential peak far above the capacity, jitter near it', async () => {
  const page = await open();
  const fixed = await runPreset(page, 'fixed');
  const exponential = await runPreset(page, 'exponential');
  const jitter = await runPreset(page, 'jitter');
  const runs = JSON.stringify({ fixed, exponential, jitter });
  assert.ok(fixed.peak >= 4 * CAPACITY, runs);
  assert.ok(exponential.peak >= 4 * CAPACITY, runs);
  assert.ok(jitter.peak <= 1.5 * CAPACITY, runs);
  assert.ok(fixed.waves >= 3 && exponential.waves >= 2, runs);
  // Exponential's waves are further apart, so its clients finish later; jitter finishes first.
  assert.ok(exponential.recovered > fixed.recovered && jitter.recovered < fixed.recovered, runs);
  // The peak card says it against the capacity, and the prediction's answer agrees.
  const jitterRun = await coreRun(page);
  await noteSays(page, 'peak_after_recovery', jitterRun, 'peak_note');
  assert.equal(jitterRun.peak_after_recovery, jitter.peak, "the core's peak is the card's");
  assert.equal(jitterRun.capacity_per_tick, CAPACITY);
  assert.equal(jitterRun.facts.peak_vs_capacity, jitter.peak / CAPACITY, 'the peak against the capacity');
  await page.click('input[name="prediction"][value="storm"]');
  assert.equal(await page.getAttribute('[data-answer] [data-verdict]', 'data-verdict'), 'wrong');
  await says(page, '[data-answer] [data-reading="verdict"]', jitterRun.reading.verdict, 'the answer');
  assert.equal(jitterRun.reading.prediction, 'near');
  assert.equal(jitterRun.facts.over_capacity, false, 'no tick went over capacity after the provider came back');
  assert.equal(jitterRun.facts.waves, 0);
  await page.click('[data-preset="fixed"]');
  await skip(page);
  assert.equal(await page.getAttribute('[data-answer] [data-verdict]', 'data-verdict'), 'right');
  const fixedRun = await coreRun(page);
  await says(page, '[data-answer] [data-reading="verdict"]', fixedRun.reading.verdict, 'the answer');
  assert.equal(fixedRun.reading.prediction, 'storm');
  // 5 waves went over capacity after the provider came back, 1 s apart.
  assert.equal(fixedRun.facts.waves, 5);
  assert.deepEqual(fixedRun.facts.wave_starts.slice(1).map((t, i) => t - fixedRun.facts.wave_starts[i]), [1e6, 1e6, 1e6, 1e6]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: three layers × 3 make 27 calls for one user action', async () => {
  const page = await open('&preset=three-layers');
  await skip(page);
  assert.equal(await stat(page, 'max_calls_per_user_action'), 27);
  const run = await coreRun(page);
  await noteSays(page, 'max_calls_per_user_action', run, 'calls_note');
  await readingSays(page, run, 'layers');
  // Up to 3 × 3 × 3 = 27 provider calls for one user action; the most one action made: 27.
  assert.deepEqual([run.facts.layers, run.facts.max_attempts, run.facts.attempts_per_layer], [3, 3, 3]);
  assert.equal(run.max_attempts_per_user_action, 27);
  assert.equal(run.facts.most_calls_per_action, 27);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: amplification is 1.0 when no layer retries', async () => {
  const page = await open('&max_attempts=1');
  await skip(page);
  assert.equal(await stat(page, 'amplification'), 1);
  // Every call was a user action's first call: as many calls as actions.
  const run = await coreRun(page);
  await noteSays(page, 'amplification', run, 'amplification_note');
  assert.equal(run.facts.attempts, run.facts.actions, 'as many calls as user actions');
  await readingSays(page, run, 'layers');
  assert.equal(run.facts.most_calls_per_action, 1, 'every user action makes exactly one provider call');
  assert.equal(run.amplification, 1);
  // Three layers of one attempt each do not retry either; the chapter's defaults do.
  await page.goto(`${server.base}/?sim=retry-storm&max_attempts=1&layers=3&attempts_per_layer=1`);
  await ready(page);
  await skip(page);
  assert.equal(await stat(page, 'amplification'), 1);
  await page.click('[data-preset="fixed"]');
  await skip(page);
  assert.ok(await stat(page, 'amplification') > 1.5);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the outage is compared with the traffic before it, per tick', async () => {
  const page = await open();
  await skip(page);
  // Fixed: retries are thousands of percent of the outage's few user calls, but the provider
  // got under twice its normal traffic, and the card says so.
  const share = await stat(page, 'outage_retry_pct');
  const traffic = await stat(page, 'outage_traffic_vs_normal');
  assert.ok(share >= 1000, `retry share ${share}%`);
  assert.ok(traffic > 1 && traffic < 2.5, `outage traffic ×${traffic}`);
  assert.equal(await page.textContent('[data-stat="outage_traffic_vs_normal"] .label'), 'Outage traffic');
  const run = await coreRun(page);
  await noteSays(page, 'outage_traffic_vs_normal', run, 'traffic_note');
  await readingSays(page, run, 'traffic');
  // Calls per tick during the outage against those before it: the card's ratio.
  assert.equal(run.outage_traffic_vs_normal, traffic, "the core's ratio is the card's");
  assert.ok(run.calls_per_tick_outage > run.calls_per_tick_before && run.calls_per_tick_before > 0, JSON.stringify(run.facts));
  assert.equal(await page.textContent('[data-stat="outage_retry_pct"] .label'), 'Retry share during the outage');
  const help = declaration().metrics.find((m) => m.key === 'outage_retry_pct').help;
  assert.equal(await page.getAttribute('[data-stat="outage_retry_pct"]', 'title'), help, "the card's help is the declaration's");
  assert.equal(help, "Retries sent while the provider was down, as a share of the user calls (first attempts) made then: the share a retry budget caps (the chapter's 'at most 10% of recent requests'). A budget counts its last 10 s, which can reach back before the outage, so over a short outage this share can end above the budget.");
  // The chapter: under a long outage a 10% budget grows traffic by about 10%, none by about 3×.
  await page.goto(`${server.base}/?sim=retry-storm&preset=budget&down_until_ms=32000`);
  await ready(page);
  await skip(page);
  const withBudget = await stat(page, 'outage_traffic_vs_normal');
  await page.goto(`${server.base}/?sim=retry-storm&preset=budget&down_until_ms=32000&budget_pct=0`);
  await ready(page);
  await skip(page);
  const without = await stat(page, 'outage_traffic_vs_normal');
  assert.ok(withBudget <= 1.35 && without >= 2.5, `with a budget ×${withBudget}, without ×${without}`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the budget\'s explanation is visible text, computed from the run', async () => {
  // A phone: no hover, and the text must still be there to read.
  const page = await open('&preset=budget', { width: 360, height: 800 });
  await skip(page);
  const budget = page.locator('[data-reading="budget"]');
  await budget.scrollIntoViewIfNeeded();
  assert.equal(await budget.isVisible(), true);
  const run = await coreRun(page);
  await readingSays(page, run, 'budget');
  assert.equal(run.params.budget_pct, 10, 'a 10% retry budget');
  assert.equal(run.facts.has_budget, true);
  // The window when the provider came back held user calls from before the outage.
  const window = run.facts.budget_window;
  assert.ok(window && window.firsts > 0 && window.firsts_before_outage > 0 && window.retries > 0, JSON.stringify(window));
  // The outage's own share is the card's number, and it is above 10% because of the window.
  const share = await stat(page, 'outage_retry_pct');
  assert.ok(share >= 12 && share <= 16, `retry share ${share}%`);
  assert.equal(run.facts.outage_retries.retry_pct, share, "the core's share is the card's");
  assert.ok(share > run.params.budget_pct, 'above the budget');
  assert.equal(run.facts.outage_retries.why, 'window-reaches-back', 'because the window still counted the calls from before the outage');
  // Without a budget the same place says so.
  await page.click('[data-preset="fixed"]');
  await skip(page);
  const fixed = await coreRun(page);
  await readingSays(page, fixed, 'budget');
  assert.equal(fixed.facts.has_budget, false, 'no retry budget');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the compare view plays fixed, exponential and jitter in step with the main clock', async () => {
  const page = await open();
  const single = {};
  for (const mode of ['fixed', 'exponential', 'jitter']) single[mode] = (await runPreset(page, mode)).peak;

  await page.click('[data-action="compare"]');
  assert.equal(await page.getAttribute('[data-action="compare"]', 'aria-pressed'), 'true');
  const columns = await page.$$eval('[data-compare]', (els) => els.map((e) => e.dataset.compare));
  assert.deepEqual(columns, ['fixed', 'exponential', 'jitter']);
  // The main run is at its end, so the three columns are too.
  await page.waitForFunction(() => document.querySelector('[data-compare="fixed"] [data-stat="peak_after_recovery"]').dataset.value !== '');
  const peaks = {};
  for (const mode of columns) peaks[mode] = await columnPeak(page, mode);
  assert.deepEqual(peaks, single, `compare ${JSON.stringify(peaks)} vs single runs ${JSON.stringify(single)}`);
  assert.match(await page.getAttribute('[data-compare="jitter"]', 'class'), /current/);
  // The backoff picked in the panel moves the mark.
  await page.click('label:has(> input[name="mode"][value="fixed"])');
  assert.match(await page.getAttribute('[data-compare="fixed"]', 'class'), /current/);
  assert.doesNotMatch(await page.getAttribute('[data-compare="jitter"]', 'class'), /current/);

  // Reset: all three start over with the main clock; skip finishes them with it.
  await page.click('[data-action="reset"]');
  assert.equal(await columnPeak(page, 'fixed'), null);
  await skip(page);
  await page.waitForFunction(() => document.querySelector('[data-compare="fixed"] [data-stat="peak_after_recovery"]').dataset.value !== '');
  assert.equal(await columnPeak(page, 'fixed'), single.fixed);
  await page.click('[data-action="compare"]');
  assert.equal(await page.$('[data-compare]'), null);
  assert.deepEqual(page.problems(), []);
  await page.context().close();

  // Playing: paused mid-run, the column with the main run's backoff shows the main run's numbers.
  const live = await open('&speed=4&duration_ms=600000', {}, { fakeClock: true });
  await live.click('[data-action="compare"]');
  await playUntil(live, pastSeconds, 7);
  // Paused: a frame has been drawn since.
  await live.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const main = await stat(live, 'peak_after_recovery');
  assert.ok(main !== null, 'the main run has a peak');
  assert.equal(await columnPeak(live, 'fixed'), main);
  const run = await coreRun(live, { paused: true });
  assert.equal(run.peak_after_recovery, main, "the core's peak at this moment is the page's");
  assert.equal(run.facts.peak_vs_capacity, main / CAPACITY);
  await says(live, '[data-compare="fixed"] .compare-detail', run.reading.summary, "the fixed column's line");
  assert.deepEqual(live.problems(), []);
  await live.context().close();
});

test('retry-storm: play runs live, the client dots follow the states', async () => {
  const page = await open('&speed=8&duration_ms=600000', {}, { fakeClock: true });
  assert.equal(await page.$$eval('.clients-strip .dots .dot', (d) => d.length), 40);
  // Just after the outage starts every client that was in a call is waiting to retry.
  await playUntil(page, pastSeconds, 2.5);
  const waiting = await page.$$eval('.clients-strip .dots .dot.waiting', (d) => d.length);
  assert.ok(waiting >= 20, `${waiting} clients waiting to retry during the outage`);
  assert.equal(plain(await page.textContent('[data-answer], .predict .answer')), 'Press play: the answer appears once the run has shown it.');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: a ten-minute outage runs 14 s past it and charts a bar per few ticks', async () => {
  const page = await open('&down_until_ms=600000');
  assert.equal(Number(await page.getAttribute('.play-controls .clock', 'data-end')), 614, 'the run ends 14 s after the outage');
  assert.equal(plain(await page.textContent('.play-controls .clock')), '0.0 s / 614.0 s');
  await skip(page);
  const recovered = await stat(page, 'recovered_ms');
  assert.ok(recovered > 600000 && recovered < 614000, `done retrying at ${recovered} ms`);
  assert.equal(await page.textContent('[data-per-bar]'), 'Each bar is the busiest 100 ms tick of 0.6 s.');
  assert.equal(await page.isVisible('[data-per-bar]'), true);
  const run = await coreRun(page);
  assert.equal(run.duration_ms, 614000);
  await readingSays(page, run, 'traffic');
  assert.ok(run.calls_while_down > 0, 'the provider got calls while it was down');
  await screenshot(page, 'retry-storm-long-outage');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: a chapter-length run charts one bar per tick', async () => {
  const page = await open();
  await skip(page);
  assert.equal(await page.isVisible('[data-per-bar]'), false);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the embed shows its picture, or with chart=attempts the attempts chart, in 720 px', async () => {
  for (const width of [1280, 720]) {
    for (const [chart, canvas] of [['', '[data-picture] canvas'], ['&chart=attempts', '#chart-attempts canvas']]) {
      const page = await open(`&embed=1${chart}`, { width, height: 720 });
      const box = await page.locator(canvas).boundingBox();
      assert.ok(box && box.y + box.height <= 720, `width ${width}${chart}: ends at ${box && box.y + box.height}`);
      await screenshot(page, `retry-storm-embed-${width}${chart ? '-attempts' : ''}`);
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});

test('retry-storm: no sideways scroll at 320 and 360 px, page and embed, every preset, before and after a run', async () => {
  const presets = [null, ...scenarios().find((s) => s.id === 'retry-storm').presets.map((p) => p.id)];
  for (const width of [320, 360]) {
    // The figure offers the presets and the comparison when its link names them.
    for (const embed of ['', `&embed=1&presets=${presets.filter(Boolean).join(',')}&show=compare`]) {
      const page = await open(embed, { width, height: 800 });
      for (const preset of presets) {
        if (preset) await page.click(`[data-preset="${preset}"]`);
        for (const phase of ['before', 'after']) {
          if (phase === 'after') await skip(page);
          const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scroll <= width, `${width}px${embed} ${preset ?? 'defaults'} ${phase}: ${scroll}px wide`);
        }
      }
      await page.click('[data-action="compare"]');
      await page.waitForSelector('[data-compare]');
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, `${width}px${embed} compare`);
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});

test('retry-storm screenshots: desktop and phone, light and dark, with the comparison', async () => {
  for (const [w, h, name] of [[1280, 900, 'desktop'], [360, 800, 'phone']]) {
    for (const scheme of ['light', 'dark']) {
      const page = await open('', { width: w, height: h, colorScheme: scheme });
      await skip(page);
      await page.click('[data-action="compare"]');
      await page.waitForSelector('[data-compare]');
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= w, `page is ${width}px wide on a ${w}px screen`);
      await screenshot(page, `retry-storm-${name}-${scheme}`);
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});
