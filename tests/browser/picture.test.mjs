// Issue 44: a figure's headline is a picture of the mechanism, drawn from the run's own state.
// What the picture says it draws (`data-drawn`) at a paused moment is what `run --at-ms` says
// the model held then: each server's requests, B's queue, the timeouts so far. Switching policy
// keeps the earlier run as a ghost (`data-ghost`): each server's longest line, dashed. Screenshots
// of the pictures at 360, 412 and 720 px, light and dark, go to target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, pausedPicture, runClockUntil, pictureLabels, timelineProblems, cliAt, cliRun, screenshot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const cases = [
  ['the chapter', 'sim=slow-server&embed=1&speed=2', 2000],
  ['a timeout without cancel', 'sim=slow-server&embed=1&preset=timeout&speed=4', 2000],
  ['a timeout with cancel', 'sim=slow-server&preset=timeout-cancel&speed=4', 1500],
  ['B fails and is ejected', 'sim=slow-server&embed=1&preset=b-fails&speed=4', 1200],
  ['least outstanding, 8 servers of 4 workers', 'sim=slow-server&embed=1&policy=least-outstanding&servers=8&workers=4&rate=900&speed=2', 1000],
];

for (const [what, query, ms] of cases) {
  test(`slow-server, ${what}: the picture draws what the model holds at the paused moment (run --at-ms)`, async () => {
    const page = await openPage(browser, { width: 412, height: 900 });
    const { atMs, drawn } = await pausedPicture(page, server.base, query, ms);
    assert.ok(atMs > 1000, `played past the slowdown: ${atMs} ms`);
    const params = new URLSearchParams(query);
    const run = cliAt(query, atMs);
    assert.equal(drawn.b_queue, run.b_queue, 'B\'s queue');
    assert.equal(drawn.timed_out, run.timed_out, 'the timeouts so far');
    assert.deepEqual(drawn.servers.map((s) => [s.name, s.final_queue]), run.servers.map((s) => [s.name, s.final_queue]));
    for (const s of drawn.servers) {
      assert.equal(s.final_queue, s.waiting + s.in_service, `${s.name}: its line and its workers`);
      assert.ok(s.waiting_drawn <= s.waiting, `${s.name}: no more dots than requests`);
    }
    assert.ok(drawn.sent_drawn > 0, 'requests on their way');
    if (run.timed_out > 0 && !params.has('preset', 'b-fails')) assert.ok(drawn.timed_out_drawn > 0, 'clients giving up are drawn');
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('slow-server: with a timeout and no cancel, B\'s line is mostly requests whose client has gone', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, 'sim=slow-server&embed=1&preset=timeout&speed=4', 2000);
  const b = drawn.servers[1];
  assert.ok(b.client_left_drawn > b.waiting_drawn / 2, `${b.client_left_drawn} of ${b.waiting_drawn} drawn for nobody`);
  await page.context().close();
});

test('slow-server: the picture is the figure\'s headline, and chart= still picks a chart', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.goto(`${server.base}/?sim=slow-server&embed=1`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart [data-picture]').count(), 1, 'the picture heads the figure');
  await page.waitForSelector('.figure-chart [data-picture] canvas[data-drawn]');
  const labels = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-labels')).map((l) => l.text);
  assert.deepEqual(labels, ['Balancer: round robin', '0 waiting', 'A', '0 waiting', 'B', '0 waiting', 'C'], 'before Play');
  await page.goto(`${server.base}/?sim=slow-server&embed=1&chart=queues`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart #chart-queues').count(), 1);
  assert.equal(await page.locator('[data-picture]').count(), 0, 'the picture is a part like the others');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

const FIGURE = 'sim=slow-server&embed=1&speed=4&presets=chapter,least-outstanding,timeout,timeout-cancel';
const clockMs = async (page) => Math.round(Number(await page.getAttribute('.play-controls .clock', 'data-value')) * 1e6) / 1000;
const maxQueues = (servers) => servers.map((s) => [s.name, s.max_queue]);

/** Presses preset `id` and returns the ghost the picture then carries (null: none). */
async function press(page, id) {
  await page.click(`[data-preset="${id}"]`);
  await page.clock.runFor(300);
  return JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-ghost'));
}

test('slow-server: switching round robin to least outstanding keeps round robin\'s lines as a ghost, and the clock', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await pausedPicture(page, server.base, FIGURE, 2000);
  const atMs = await clockMs(page);
  assert.equal(await page.getAttribute('[data-picture] canvas', 'data-ghost'), null, 'no ghost before a change');
  // The figure opens on the chapter's settings without naming a preset: the ghost names it.
  const ghost = await press(page, 'least-outstanding');
  assert.equal(ghost.label, 'Round robin (the chapter)');
  const chapter = cliRun(['run', 'slow-server', '--preset', 'chapter', '--json']);
  assert.deepEqual(maxQueues(ghost.servers), maxQueues(chapter.servers), 'the ghost is the chapter\'s whole run');
  assert.equal(await clockMs(page), atMs, 'the clock stayed');
  const b = ghost.servers[1].max_queue;
  // The ghost's two labels come last, each in as many rows as it needs beside the balancer.
  const said = (await pictureLabels(page)).labels.map((l) => l.text).join(' ');
  assert.ok(said.endsWith(`dashed: Round robin (the chapter) B's queue peaked at ${b}`), said);
  await screenshot(page, 'slow-server-picture-ghost-412');
  // A timeout, then the same timeout with cancellation: B's line of work nobody waits for.
  await press(page, 'timeout');
  // Presses less than a second apart are one change (a drag): let one pass.
  await page.clock.runFor(1500);
  const timeout = await press(page, 'timeout-cancel');
  assert.equal(timeout.label, 'Timeout, no cancellation');
  assert.deepEqual(maxQueues(timeout.servers), maxQueues(cliRun(['run', 'slow-server', '--preset', 'timeout', '--json']).servers));
  await screenshot(page, 'slow-server-picture-ghost-timeout-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`slow-server's ghost at ${width} px, ${scheme}: its labels inside the canvas, none overlapping`, async () => {
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    await pausedPicture(page, server.base, `${FIGURE}&preset=least-outstanding`, 2000);
    for (const id of ['chapter', 'timeout']) {
      await page.clock.runFor(1500);
      const ghost = await press(page, id);
      const drawn = await pictureLabels(page);
      const said = drawn.labels.map((l) => l.text).join(' ');
      assert.match(said, new RegExp(`dashed: ${ghost.label.replace(/[()]/g, '.')} B's queue peaked at ${ghost.servers[1].max_queue}$`));
      assert.deepEqual(timelineProblems(drawn), [], id);
      await screenshot(page, `slow-server-picture-ghost-${id}-${width}-${scheme}`);
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`slow-server's picture at ${width} px, ${scheme}: every label inside the canvas, none overlapping`, async () => {
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    await pausedPicture(page, server.base, 'sim=slow-server&embed=1&preset=timeout&speed=4', 2500);
    const { labels, w, h } = await page.$eval('[data-picture] canvas', (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight }));
    assert.ok(labels.some((l) => /^B ×5 slower$|^B$/.test(l.text)), 'B is named');
    assert.ok(labels.some((l) => /waiting/.test(l.text) && l.text !== '0 waiting'), 'a line\'s count');
    for (const l of labels) assert.ok(l.x >= 0 && l.y >= 0 && l.x + l.w <= w + 0.01 && l.y + l.h <= h + 0.01, `"${l.text}" is cut`);
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
      const [a, b] = [labels[i], labels[j]];
      assert.ok(!(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h), `"${a.text}" overlaps "${b.text}"`);
    }
    await screenshot(page, `slow-server-picture-${width}-${scheme}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('slow-server: the picture is redrawn for its new width when its column changes without a window resize', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  await pausedPicture(page, server.base, 'sim=slow-server&embed=1&speed=4', 1500);
  const drawnFor = () => page.$eval('[data-picture] canvas', (c) => ({ drawn: c.width / devicePixelRatio, shown: c.clientWidth }));
  const before = await drawnFor();
  assert.equal(before.drawn, before.shown, 'drawn for the width it is shown at');
  // A layout change the window does not see (a column settling after mount, a scroll bar).
  await page.$eval('[data-picture]', (f) => { f.style.width = '300px'; });
  await runClockUntil(page, () => page.$eval('[data-picture] canvas', (c) => c.clientWidth < 300 && c.width / devicePixelRatio === c.clientWidth));
  const drawn = await pictureLabels(page);
  assert.deepEqual(timelineProblems(drawn), []);
  assert.ok(drawn.labels.every((l) => l.x + l.w <= drawn.w), 'every label inside the narrower canvas');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
