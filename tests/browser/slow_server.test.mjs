import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, scenarioIds, skipToEnd, stat, setSlider, plain, coreRun, saysReading, playUntil, pastSeconds } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Once Pause has taken (a frame under way when it was pressed has run by the second frame after), the core's run at the page's moment. */
async function pausedRun(page) {
  await page.waitForSelector('[data-action="play"]');
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return coreRun(page, { paused: true });
}
const answer = '[data-answer] [data-reading]';

test('home page lists every simulation, no console error', async () => {
  for (const [w, name] of [[1280, 'desktop'], [390, 'phone']]) {
    const page = await openPage(browser, { width: w });
    await page.goto(`${server.base}/`);
    await ready(page);
    const cards = await page.$$eval('.cards [data-scenario]', (els) => els.map((e) => e.dataset.scenario));
    assert.deepEqual(cards, scenarioIds());
    await screenshot(page, `home-${name}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

test('slow-server: play advances time, p99 rises after the slowdown and B\'s queue grows', async () => {
  const page = await openPage(browser);
  await page.clock.install();
  await page.goto(`${server.base}/?sim=slow-server&speed=8&duration_ms=60000`);
  await ready(page);
  assert.equal(await stat(page, 'time_s'), 0);
  await page.click('input[name="prediction"][value="double"]');
  await playUntil(page, pastSeconds, 6);
  const before = await stat(page, 'p99_ms_before');
  const after = await stat(page, 'p99_ms_after_with_waiting');
  const bQueue = await stat(page, 'b_queue');
  assert.ok(before > 0 && after > 5 * before, `p99 before ${before}, after ${after}`);
  assert.ok(bQueue > 50, `B's queue ${bQueue}`);
  // The answer is the core's at this moment: round robin still sends B its share, more than it can serve.
  const run = await pausedRun(page);
  await saysReading(page, run, answer);
  assert.equal(run.facts.spread, 'round-robin');
  assert.equal(run.facts.why, 'b-share-overloaded');
  assert.ok(run.facts.share > run.facts.b_capacity, `B's share ${run.facts.share} req/s, B serves ${run.facts.b_capacity} req/s`);
  await screenshot(page, 'slow-server-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: the answer waits for a guess, and explains the policy, the load and the timing it was run with', async () => {
  const page = await openPage(browser);
  // The answer at the end of the run at `query` is the core's; the facts of the core's run.
  const answerAfterSkip = async (query) => {
    await page.goto(`${server.base}/?sim=slow-server${query}`);
    await ready(page);
    await page.click('[data-action="skip"]');
    await page.waitForSelector('[data-answer]', { timeout: 20000 });
    const run = await coreRun(page);
    await saysReading(page, run, answer);
    return run;
  };
  // Past the slowdown but no guess yet: no answer, an invitation instead. Played on the page's
  // own clock, so the run is still going (and Pause still means pause) when the test presses it.
  await page.clock.install();
  await page.goto(`${server.base}/?sim=slow-server&speed=64&duration_ms=600000`);
  await ready(page);
  await playUntil(page, pastSeconds, 3.5);
  assert.equal(await page.$('[data-answer]'), null);
  assert.equal((await page.textContent('.predict .answer')).trim(), 'Pick an answer to see what happened.');
  await page.click('input[name="prediction"][value="explodes"]');
  assert.equal(plain(await page.textContent('[data-answer] [data-verdict]')), 'You said: p99 grows many times over and keeps growing. That is what this run did.');
  assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'right');
  const run = await pausedRun(page);
  await saysReading(page, run, answer);
  assert.equal(run.reading.prediction, 'explodes', 'the run\'s p99 grows many times over');

  let { facts } = await answerAfterSkip('&policy=random');
  // Random choice still sends B its share, 50 req/s on average, but B can now serve only 20 req/s.
  assert.deepEqual([facts.spread, facts.why, facts.share, facts.b_capacity], ['random', 'b-share-overloaded', 50, 20]);
  ({ facts } = await answerAfterSkip('&rate=30'));
  // Even slowed, B can serve 20 req/s, more than its share of 10 req/s.
  assert.deepEqual([facts.why, facts.share, facts.b_capacity], ['b-share-fits', 10, 20]);
  ({ facts } = await answerAfterSkip('&rate=60'));
  // B's share, 20 req/s, is now 100% of what B can serve.
  assert.deepEqual([facts.why, facts.share, facts.b_capacity, facts.b_load], ['b-share-near-full', 20, 20, 1]);
  ({ facts } = await answerAfterSkip('&preset=timeout-cancel'));
  // Each timed-out request left its server's queue with its client, so queues stay bounded.
  assert.equal(facts.cancel_on_timeout, true);
  assert.ok(facts.timeout > 0 && facts.timed_out > 0, `timeout ${facts.timeout} µs, ${facts.timed_out} timed out`);
  assert.equal(facts.still_growing, false);
  ({ facts } = await answerAfterSkip('&preset=least-outstanding'));
  // The policy looks at the servers' load.
  assert.deepEqual([facts.spread, facts.why], ['by-load', 'load-aware']);
  const never = await answerAfterSkip('&slow_at_ms=15000&duration_ms=5000');
  ({ facts } = never);
  // B does not slow down within this run, and no ratio is given.
  assert.equal(facts.why, 'change-after-the-end');
  assert.ok(facts.slow_at > facts.end, `slows at ${facts.slow_at} µs, the run ends at ${facts.end} µs`);
  assert.equal(facts.p99_ratio, null);
  assert.equal(never.reading.ratio ?? '', '', 'no ratio: the page says only the answer');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: moving a slider changes the run and the URL', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server`);
  await ready(page);
  await skipToEnd(page);
  const arrivedDefault = await stat(page, 'completed');
  const end = await stat(page, 'time_s');
  await setSlider(page, 'rate', 60);
  // The new run is shown at the moment the reader was at: its end (live controls, issue 44).
  await page.waitForFunction((before) => Number(document.querySelector('[data-stat="completed"]').dataset.value) !== before, arrivedDefault);
  assert.equal(await stat(page, 'time_s'), end, 'the clock stays at the end');
  const arrivedSlower = await stat(page, 'completed');
  assert.ok(arrivedSlower < arrivedDefault, `completed ${arrivedDefault} -> ${arrivedSlower}`);
  await page.waitForFunction(() => location.search.includes('rate=60'), null, { timeout: 5000 });
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: least-outstanding keeps p99 after within a small multiple of before', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&preset=least-outstanding`);
  await ready(page);
  await skipToEnd(page);
  const before = await stat(page, 'p99_ms_before');
  const after = await stat(page, 'p99_ms_after_with_waiting');
  assert.ok(after < 6 * before, `p99 before ${before}, after ${after}`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: the charts mark B\'s slowdown only when there is one (none at ×1), and B going down and its ejection', async () => {
  const page = await openPage(browser);
  const cases = [['', ['B ×5 slower']], ['&slowdown=1', []], ['&slowdown=1&b_fails=true', ['B goes down', 'B ejected']]];
  for (const [query, want] of cases) {
    await page.goto(`${server.base}/?sim=slow-server${query}`);
    await ready(page);
    await skipToEnd(page);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    for (const chart of ['#chart-queues', '#chart-latency']) {
      const labels = JSON.parse(await page.getAttribute(`${chart} canvas`, 'data-labels')).map((l) => l.text);
      assert.deepEqual(labels.filter((l) => l.startsWith('B ')), want, `${query || 'defaults'} ${chart}: ${labels.join(' | ')}`);
    }
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server on a phone, in dark mode', async () => {
  const page = await openPage(browser, { width: 390, height: 844, colorScheme: 'dark' });
  await page.goto(`${server.base}/?sim=slow-server`);
  await ready(page);
  await skipToEnd(page);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `page is ${width}px wide on a 390px screen`);
  await screenshot(page, 'slow-server-phone-dark');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('skip to end of a four-hour run at the highest rate keeps the page responsive', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server&rate=3000&servers=8&duration_ms=14400000`);
  await ready(page);
  await page.click('[data-action="skip"]');
  // The run advances chunk by chunk; between chunks the page still answers, and shows the run
  // part way (a run done in one go would go from 0 to its end with no answer in between).
  await page.waitForFunction(() => {
    const clock = document.querySelector('.play-controls .clock');
    return Number(clock.dataset.value) > 1 && Number(clock.dataset.value) < Number(clock.dataset.end);
  }, null, { timeout: 10000 });
  await page.click('[data-action="play"]'); // Play takes over from the skip...
  await page.click('[data-action="pause"]'); // ...and Pause stops both.
  await page.waitForSelector('[data-action="play"]');
  const t1 = await stat(page, 'time_s');
  // Twenty frames later (a running clock moves on every frame), the clock has not moved.
  await page.evaluate(() => new Promise((done) => {
    let left = 20;
    const next = () => (--left ? requestAnimationFrame(next) : done());
    requestAnimationFrame(next);
  }));
  assert.equal(await stat(page, 'time_s'), t1, 'nothing runs after pause');
  assert.ok(t1 < 14400, `stopped before the end: ${t1} s`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: the client timeout at 0 reads "off" on its slider, to eye and screen reader', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?sim=slow-server&embed=1`);
  await ready(page);
  const said = () => page.$eval('input[name="timeout_ms"]', (el) => [el.closest('.slider').querySelector('output').textContent, el.getAttribute('aria-valuetext')]);
  assert.deepEqual(await said(), ['off', 'off']);
  await setSlider(page, 'timeout_ms', 500);
  await page.waitForFunction(() => document.querySelector('input[name="timeout_ms"]').getAttribute('aria-valuetext') === '500 ms');
  assert.deepEqual(await said(), ['500 ms', '500 ms']);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
