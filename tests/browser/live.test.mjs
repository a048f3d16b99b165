// Issue 44, live controls: moving a control, pressing a preset or taking a new seed does not put
// the reader's clock back or stop the run. The run is built again with the new setting and
// replayed to the moment the reader was at, so what is on screen is what the new link gives at
// that moment (`run --url … --at-ms`). Played on the page's own clock (Playwright's fake one).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, holdClock, playFor, cliRun, setSlider, stat, skipToEnd } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const clockMs = async (page) => Math.round(Number(await page.getAttribute('.play-controls .clock', 'data-value')) * 1e6) / 1000;
const playing = async (page) => (await page.locator('[data-action="pause"]').count()) === 1;
/** The page's link now, as the CLI reads it. */
const link = (page) => page.evaluate(() => location.search);

async function open(query) {
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.clock.install();
  await page.goto(`${server.base}/?${query}`);
  await ready(page);
  return page;
}

/** What the page shows at its paused moment against what its link gives at that moment. */
async function sameAsTheLink(page) {
  await page.clock.runFor(300);
  const atMs = await clockMs(page);
  const run = cliRun(['run', '--url', await link(page), '--at-ms', String(atMs), '--json']);
  const drawn = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-drawn'));
  assert.equal(drawn.b_queue, run.b_queue, `B's queue at ${atMs} ms`);
  assert.equal(await stat(page, 'b_queue'), run.b_queue, `B's queue card at ${atMs} ms`);
  assert.equal(await stat(page, 'timed_out'), run.timed_out, `the timeouts card at ${atMs} ms`);
}

test('slow-server: a slider moved while playing keeps the clock and keeps playing, on the new run', async () => {
  const page = await open('sim=slow-server&embed=1&speed=4');
  await holdClock(page);
  await page.click('[data-action="play"]');
  await page.clock.runFor(1000);
  const before = await clockMs(page);
  assert.ok(before > 3000, `played to ${before} ms`);
  await setSlider(page, 'slowdown', 8);
  // The address follows 250 ms after the last change.
  await page.clock.runFor(300);
  assert.ok(await playing(page), 'still playing');
  const after = await clockMs(page);
  assert.ok(after >= before, `the clock went back from ${before} to ${after} ms`);
  assert.match(await link(page), /slowdown=8/);
  await page.click('[data-action="pause"]');
  await sameAsTheLink(page);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: paused, a change of policy shows the new run at the same moment', async () => {
  const page = await open('sim=slow-server&embed=1&speed=4');
  await playFor(page, 1000);
  const before = await clockMs(page);
  await page.click('input[name="policy"][value="least-outstanding"]');
  await page.clock.runFor(100);
  assert.equal(await clockMs(page), before, 'the same moment');
  assert.equal(await playing(page), false, 'still paused');
  await sameAsTheLink(page);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: at the end, a preset or a new seed shows the new run at its end', async () => {
  const page = await open('sim=slow-server&embed=1&presets=chapter,least-outstanding&show=seed');
  await skipToEnd(page);
  await page.click('[data-preset="least-outstanding"]');
  await page.clock.runFor(100);
  const end = Number(await page.getAttribute('.play-controls .clock', 'data-end'));
  assert.equal(await clockMs(page), end * 1000, 'at the end of the new run');
  await sameAsTheLink(page);
  await page.click('[data-action="new-seed"]');
  await page.clock.runFor(300);
  assert.equal(await clockMs(page), end * 1000, 'a new seed, still at the end');
  assert.match(await link(page), /[?&]seed=\d+/, 'the link has the new seed');
  await sameAsTheLink(page);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
