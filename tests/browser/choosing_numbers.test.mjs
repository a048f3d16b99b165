// Chapter 1 Part 5, "Choosing the numbers": the latency chart marks p50, p99, p99.9 and the
// timeout; moving the timeout slider moves the timeout rate the way the fitted tail says; the
// timeline shows the slowest request's attempts; the chapter's figures sit beside this run's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, setSlider, skipToEnd, stat, timelineLabels, timelineProblems } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

async function open(query, opts = {}) {
  const page = await openPage(browser, opts);
  await page.goto(`${server.base}/?sim=choosing-numbers&${query}`);
  await ready(page);
  await page.waitForSelector('#chart-latency canvas');
  return page;
}

test('choosing-numbers: the chart names p50, p99, p99.9 and the timeout, and the slider moves the rate', async () => {
  const page = await open('preset=chapter');
  const label = await page.getAttribute('#chart-latency canvas', 'aria-label');
  assert.match(label, /p50 40 ms, p99 180 ms, p99\.9 310 ms/);
  assert.match(label, /500 ms timeout/);
  await skipToEnd(page);
  const at500 = await stat(page, 'timeout_rate_pct');
  assert.ok(at500 < 0.3, `a 500 ms timeout: ${at500}% of healthy calls timed out`);
  await setSlider(page, 'timeout_ms', 180);
  await page.waitForFunction(() => /180 ms timeout/.test(document.querySelector('#chart-latency canvas').getAttribute('aria-label')));
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
  const row = await page.textContent('[data-chapter-table] tr[data-row="chapter_worst"]');
  assert.match(row, /12,000 ms/);
  assert.match(row, /12 s = 2 calls × 3 attempts × 2 s/);
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
    await page.waitForFunction((v) => document.querySelector('#chart-latency canvas').getAttribute('aria-label').includes(`${v} ms timeout`), slider);
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
