// Chapter 1 Part 5, "Choosing the numbers": the latency chart marks p50, p99, p99.9 and the
// timeout; moving the timeout slider moves the timeout rate the way the fitted tail says; the
// timeline shows the slowest request's attempts; the chapter's figures sit beside this run's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ready, screenshot, setSlider, skipToEnd, stat, timelineLabels, timelineProblems, coreRun, says, playFor, shots } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

async function open(query, opts = {}) {
  const page = await openPage(browser, opts);
  await page.goto(`${server.base}/?sim=choosing-numbers&${query}`);
  await ready(page);
  // A figure leads with its picture; the full page shows the latency chart too.
  await page.waitForSelector(query.includes('embed=1') && !query.includes('chart=latency') ? '[data-picture] canvas' : '#chart-latency canvas');
  return page;
}

// The latency chart's description (the page's own wording, with the fitted tail's figures).
const chartLabel = (page) => page.getAttribute('#chart-latency canvas', 'aria-label');
const latencyLabel = (p50, p99, p999, timeout, slower) => 'Calls in 10,000 slower than each latency (log scale); drag on it to move the timeout. '
  + `The dependency's latency: p50 ${p50} ms, p99 ${p99} ms, p99.9 ${p999} ms. At the ${timeout} ms timeout, ${slower} calls in 10,000 are slower.`;
// A row of the chapter's table: its label, this run's cell and the chapter's, as the reading's
// sentence under the row's key ("label\tthis run\tthe chapter's").
const tableRow = (page, key) => page.$$eval(`[data-chapter-table] tr[data-row="${key}"] > *`, (els) => els.map((e) => e.textContent).join('\t'));

test('choosing-numbers: the chart names p50, p99, p99.9 and the timeout, and the slider moves the rate', async () => {
  const page = await open('preset=chapter');
  assert.equal(await chartLabel(page), latencyLabel(40, 180, 310, 500, '1.3'));
  // The figures are the run's: its latency settings and its fitted tail above 500 ms (0.013%).
  const run = await coreRun(page, { paused: true });
  assert.deepEqual([run.params.p50_ms, run.params.p99_ms, run.params.p999_ms, run.params.timeout_ms], [40, 180, 310, 500]);
  assert.equal(Math.round(run.facts.tail_pct * 1000) / 10, 1.3, `the fitted tail: ${run.facts.tail_pct}%`);
  await skipToEnd(page);
  const at500 = await stat(page, 'timeout_rate_pct');
  assert.ok(at500 < 0.3, `a 500 ms timeout: ${at500}% of healthy calls timed out`);
  await setSlider(page, 'timeout_ms', 180);
  const at180label = latencyLabel(40, 180, 310, 180, '100');
  await page.waitForFunction((want) => document.querySelector('#chart-latency canvas').getAttribute('aria-label') === want, at180label)
    .catch(() => {});
  assert.equal(await chartLabel(page), at180label);
  await skipToEnd(page);
  const at180 = await stat(page, 'timeout_rate_pct');
  assert.ok(at180 > 0.4 && at180 < 2, `at p99: ${at180}%`);
  assert.ok(await stat(page, 'calls_per_request') > 1, 'the timed-out calls were retried');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('choosing-numbers: Break 2 waits 12 s, and its fix answers within 2 s', async () => {
  const page = await open('preset=ch1-break-2');
  await skipToEnd(page);
  assert.equal(await stat(page, 'worst_wait_ms'), 12000);
  // The row is the core's: this run's worst wait, 12,000 ms, is the chapter's 2 calls × 3
  // attempts × 2 s.
  const run = await coreRun(page);
  assert.equal(await tableRow(page, 'chapter_worst'), run.reading.chapter_worst);
  assert.equal(run.facts.worst_ms, 12000);
  assert.equal(run.params.sequential_calls * run.params.max_attempts * run.params.timeout_ms, 12000);
  assert.deepEqual([run.params.sequential_calls, run.params.max_attempts, run.params.timeout_ms], [2, 3, 2000]);
  // An out-of-view canvas redraws at most every 250 ms: wait for the lanes, then check them.
  await page.waitForFunction(() => {
    const c = document.querySelector('#timeline canvas');
    const texts = c?.dataset.labels ? JSON.parse(c.dataset.labels).map((l) => l.text) : [];
    return texts.includes('Slowest') && texts.includes('Latest');
  }, null, { timeout: 20000 });
  const t = await timelineLabels(page);
  assert.deepEqual(timelineProblems(t, ['Slowest', 'Latest']), []);
  await page.goto(`${server.base}/?sim=choosing-numbers&preset=ch1-break-2-fixed`);
  await ready(page);
  await skipToEnd(page);
  assert.ok(await stat(page, 'worst_wait_ms') <= 2000);
  assert.ok(await stat(page, 'fallback_pct') > 0, 'partial answers instead of waits');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Where x (ms) is on the latency chart, in page pixels, from the plot's place the draw published.
async function chartPoint(page, ms) {
  return page.evaluate((ms) => {
    const c = document.querySelector('#chart-latency canvas');
    const [left, w, x0, x1] = c.dataset.plot.split(' ').map(Number);
    const r = c.getBoundingClientRect();
    return { x: r.left + left + ((ms - x0) / (x1 - x0)) * w, y: r.top + r.height / 2 };
  }, ms);
}

test('choosing-numbers: dragging on the chart moves the timeout, as the slider does', async () => {
  for (const width of [1280, 412]) {
    const page = await open('preset=chapter', { width, height: 900 });
    await page.locator('#chart-latency canvas').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('#chart-latency canvas')?.dataset.plot);
    const from = await chartPoint(page, 500);
    const to = await chartPoint(page, 200);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, to.y, { steps: 4 });
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    const slider = Number(await page.inputValue('input[name="timeout_ms"]'));
    // One pixel of the chart is a few ms: the value lands within two slider steps of 200.
    assert.ok(Math.abs(slider - 200) <= 20, `${width} px: dragged to ${slider} ms`);
    await page.waitForFunction((v) => location.search.includes(`timeout_ms=${v}`), slider, { timeout: 5000 });
    // The description follows: it is the page's own for the dragged state, opened afresh.
    const fresh = await openPage(browser, { width, height: 900 });
    await fresh.goto(page.url());
    await ready(fresh);
    await fresh.waitForSelector('#chart-latency canvas[aria-label]');
    const want = await chartLabel(fresh);
    await fresh.context().close();
    assert.notEqual(want, latencyLabel(40, 180, 310, 500, '1.3'));
    await page.waitForFunction((want) => document.querySelector('#chart-latency canvas').getAttribute('aria-label') === want, want).catch(() => {});
    assert.equal(await chartLabel(page), want);
    const labels = JSON.parse(await page.getAttribute('#chart-latency canvas', 'data-labels')).map((l) => l.text);
    assert.ok(labels.includes(`timeout ${slider} ms`), labels.join(' | '));
    // The log axis tops at the 10,000 calls it counts.
    assert.ok(labels.includes('10k of 10,000') && !labels.some((t) => t.startsWith('100k')), labels.join(' | '));
    await skipToEnd(page);
    const rate = await stat(page, 'timeout_rate_pct');
    assert.ok(rate > 0.3, `a ${slider} ms timeout, near p99: ${rate}% timed out`);
    await screenshot(page, `choosing-numbers-dragged-${width}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

test('choosing-numbers: the embed at 412 px and 360 px', async () => {
  for (const width of [412, 360]) {
    const page = await open('embed=1&preset=fan-out-5', { width, height: 915 });
    await skipToEnd(page);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= width, `${width} px: the figure is ${wide} px wide`);
    await screenshot(page, `choosing-numbers-embed-${width}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

// Issue 47, item 4: the alert has a pending time, so its card alone ("Alert firing: no") would
// hide a condition that already holds; its note says the state, since when, and the rule.
test('choosing-numbers: the alert card says pending, then firing, as the core does', async () => {
  const page = await openPage(browser, { width: 412, height: 915 });
  await page.clock.install();
  await page.goto(`${server.base}/?sim=choosing-numbers&preset=drift`);
  await ready(page);
  const note = '[data-stat="alert_firing"] .note[data-reading="alert"]';
  const card = page.locator('.stats', { has: page.locator('[data-stat="alert_firing"]') });
  // Play until the core's run of the paused moment has the alert pending.
  let run;
  for (let i = 0; i < 60; i++) {
    await playFor(page, 2000);
    run = await coreRun(page, { paused: true });
    if (run.facts.alert === 'pending') break;
  }
  assert.equal(run.facts.alert, 'pending', 'the alert is pending at some moment after the drift');
  await says(page, note, run.reading.alert, 'the alert while pending');
  assert.equal(await stat(page, 'alert_firing'), 0);
  assert.equal(await page.getAttribute('[data-stat="alert_firing"]', 'class'), 'stat');
  await card.screenshot({ path: join(shots, 'choosing-numbers-alert-pending-412.png') });
  await skipToEnd(page);
  run = await coreRun(page);
  assert.equal(run.facts.alert, 'firing');
  await says(page, note, run.reading.alert, 'the alert once fired');
  assert.equal(await stat(page, 'alert_firing'), 1);
  assert.equal(await page.getAttribute('[data-stat="alert_firing"]', 'class'), 'stat bad');
  await card.screenshot({ path: join(shots, 'choosing-numbers-alert-firing-412.png') });
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
