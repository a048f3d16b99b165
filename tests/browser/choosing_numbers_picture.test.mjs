// Issue 44: choosing-numbers' figure is headed by a picture of calls landing on the dependency's
// latency, the timeout cutting its tail, and the slowest request attempt by attempt, drawn from
// the run's own state. What the picture says it draws (`data-drawn`) at a paused moment is what
// `run --at-ms` says then; moving the timeout moves its share at once and keeps the clock;
// switching Break 2 to its fix keeps the 12 s wait as a ghost on an axis that does not move.
// Screenshots at 360, 412 and 720 px, light and dark, go to target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, pausedPicture, pictureLabels, timelineProblems, cliRun, screenshot, setSlider, cliAt } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const FIGURE = 'sim=choosing-numbers&embed=1&controls=timeout_ms,retry_policy,fan_out';
const BREAK = `${FIGURE}&presets=ch1-break-2,ch1-break-2-fixed`;

const texts = async (page) => (await pictureLabels(page)).labels.map((l) => l.text);

for (const [what, query, ms] of [['the chapter', FIGURE, 8000], ['Break 2', `${BREAK}&preset=ch1-break-2`, 15000], ['Break 2, fixed', `${BREAK}&preset=ch1-break-2-fixed`, 15000], ['a drift', `${FIGURE}&preset=drift`, 12000]]) {
  test(`choosing-numbers, ${what}: the picture draws what the model holds at the paused moment (run --at-ms)`, async () => {
    const page = await openPage(browser, { width: 412, height: 900 });
    const { atMs, drawn } = await pausedPicture(page, server.base, query, ms);
    assert.equal(drawn.at_ms, atMs, 'the picture is of the moment paused at');
    const run = cliAt(query, atMs);
    // The metrics round: a wait to 0.1 ms, a share to 0.001 %.
    const round = (x, digits) => x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits;
    assert.equal(round(drawn.worst_wait_ms, 1), run.worst_wait_ms, 'the slowest request is the worst wait');
    assert.equal(drawn.timeout_ms, run.params.timeout_ms || null);
    if (!drawn.drifted && drawn.tail_now_pct !== null) {
      assert.equal(round(drawn.tail_now_pct, 3), run.tail_at_timeout_pct, 'the share past the timeout');
    }
    assert.ok(drawn.landed === Math.min(200, drawn.landed_total) && drawn.landed_timed_out <= drawn.landed);
    assert.ok(drawn.axis_end_ms >= drawn.worst_wait_ms, 'the slowest request is on its axis');
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('choosing-numbers, Break 2: two calls × three attempts × 2 s, the slowest waited 12 s on a 12 s axis', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, `${BREAK}&preset=ch1-break-2`, 15000);
  assert.deepEqual(drawn.slowest, { wait_ms: 12000, calls: 2, attempts: [3, 3] });
  assert.equal(drawn.axis_end_ms, 12000);
  const t = await texts(page);
  assert.ok(t.includes('slowest request so far: waited 12,000 ms') && t.includes('12 s'), t.join(' | '));
  // Issue 45, item 9: Break 2's dependency is a search API's, not the chapter's pricing call.
  const question = await page.textContent('.predict legend');
  assert.ok(question.startsWith("Where would you put the dependency's timeout?"), question);
  await page.context().close();
});

test('choosing-numbers: Break 2 then its fix keeps the 12 s wait as a ghost beside the 2 s deadline, axis and clock kept', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { atMs, drawn: broken } = await pausedPicture(page, server.base, `${BREAK}&preset=ch1-break-2`, 15000);
  await page.click('[data-preset="ch1-break-2-fixed"]');
  await page.clock.runFor(300);
  const canvas = page.locator('[data-picture] canvas');
  const fixed = JSON.parse(await canvas.getAttribute('data-drawn'));
  const ghost = JSON.parse(await canvas.getAttribute('data-ghost'));
  assert.deepEqual([ghost.label, ghost.worst_wait_ms], ['Break 2: 12 s waits', 12000]);
  assert.equal(fixed.at_ms, atMs, 'the clock stayed');
  assert.equal(fixed.axis_end_ms, broken.axis_end_ms, 'the axis did not move');
  assert.ok(fixed.worst_wait_ms <= 2000, `the fix: ${fixed.worst_wait_ms} ms`);
  const t = await texts(page);
  assert.ok(t.includes('before: 12 s') && t.includes('deadline 2 s'), t.join(' | '));
  await screenshot(page, 'choosing-numbers-picture-break-2-ghost-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('choosing-numbers: moving the timeout moves the tail\'s share at once and keeps the clock', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { atMs } = await pausedPicture(page, server.base, FIGURE, 6000);
  await setSlider(page, 'timeout_ms', 180);
  await page.clock.runFor(300);
  const drawn = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-drawn'));
  assert.equal(drawn.at_ms, atMs, 'the clock stayed');
  assert.equal(drawn.timeout_ms, 180);
  const run = cliAt(`${FIGURE}&timeout_ms=180`, atMs);
  assert.equal(Math.round(drawn.tail_now_pct * 1000) / 1000, run.tail_at_timeout_pct, 'the share past the new timeout');
  const t = await texts(page);
  assert.ok(t.some((l) => /^timeout 180 ms: 1(\.0)?% slower$/.test(l)), t.join(' | '));
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('choosing-numbers: the picture is the figure\'s headline, and chart=latency still picks the chart', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.goto(`${server.base}/?${FIGURE}`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart [data-picture]').count(), 1, 'the picture heads the figure');
  await page.goto(`${server.base}/?${FIGURE}&chart=latency`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart #chart-latency').count(), 1);
  assert.equal(await page.locator('[data-picture]').count(), 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

const shown = [['chapter', 8000], ['ch1-break-2', 15000], ['ch1-break-2-fixed', 15000], ['drift', 12000], ['fan-out-5', 8000], ['connect-below-syn', 8000]];

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`choosing-numbers' picture at ${width} px, ${scheme}: every label inside the canvas, none overlapping`, async () => {
    // One page loads every preset in turn: the same fresh load at this size and scheme.
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    for (const [preset, ms] of shown) {
      await pausedPicture(page, server.base, `${FIGURE}&preset=${preset}`, ms);
      const drawn = await pictureLabels(page);
      assert.deepEqual(timelineProblems(drawn), [], preset);
      const t = drawn.labels.map((l) => l.text);
      assert.ok(t.some((l) => /^(timeout .* slower|no timeout: nothing is cut off)$/.test(l)), `${preset}: the timeout's share: ${t.join(' | ')}`);
      assert.ok(t.some((l) => l.startsWith('slowest request')), `${preset}: the slowest request: ${t.join(' | ')}`);
      await screenshot(page, `choosing-numbers-picture-${preset}-${width}-${scheme}`);
      assert.deepEqual(page.problems(), [], preset);
    }
    await page.context().close();
  });
}
