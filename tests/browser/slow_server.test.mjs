import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, scenarioIds, skipToEnd, stat, setSlider } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

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
  await page.goto(`${server.base}/?sim=slow-server&speed=8&duration_ms=60000`);
  await ready(page);
  assert.equal(await stat(page, 'time_s'), 0);
  await page.click('input[name="prediction"][value="double"]');
  await page.click('[data-action="play"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 6, null, { timeout: 20000 });
  await page.click('[data-action="pause"]');
  const before = await stat(page, 'p99_ms_before');
  const after = await stat(page, 'p99_ms_after');
  const bQueue = await stat(page, 'b_queue');
  assert.ok(before > 0 && after > 5 * before, `p99 before ${before}, after ${after}`);
  assert.ok(bQueue > 50, `B's queue ${bQueue}`);
  const answer = await page.textContent('[data-answer]');
  assert.match(answer, /Round robin still sends B its share/);
  await screenshot(page, 'slow-server-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: the answer waits for a guess, and explains the policy, the load and the timing it was run with', async () => {
  const page = await openPage(browser);
  const answerAfterSkip = async (query) => {
    await page.goto(`${server.base}/?sim=slow-server${query}`);
    await ready(page);
    await page.click('[data-action="skip"]');
    await page.waitForSelector('[data-answer]', { timeout: 20000 });
    return page.textContent('[data-answer]');
  };
  // Past the slowdown but no guess yet: no answer, an invitation instead. A ten-minute run, so
  // the run is still going (and Pause still means pause) whenever the test gets to press it.
  await page.goto(`${server.base}/?sim=slow-server&speed=64&duration_ms=600000`);
  await ready(page);
  await page.click('[data-action="play"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 3.5, null, { timeout: 20000 });
  await page.click('[data-action="pause"]');
  assert.equal(await page.$('[data-answer]'), null);
  assert.match(await page.textContent('.predict .answer'), /Pick an answer/);
  await page.click('input[name="prediction"][value="explodes"]');
  assert.match(await page.textContent('[data-answer]'), /^You said: p99 grows many times over/);
  assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'right');

  assert.match(await answerAfterSkip('&policy=random'), /Random choice still sends B its share, 50 req\/s on average, but B can now serve only 20 req\/s/);
  assert.match(await answerAfterSkip('&rate=30'), /Even slowed, B can serve 20 req\/s, more than its share of 10 req\/s/);
  assert.match(await answerAfterSkip('&rate=60'), /B's share, 20 req\/s, is now 100% of what B can serve/);
  assert.match(await answerAfterSkip('&preset=timeout-cancel'), /left its server's queue with its client, so queues stay bounded/);
  assert.match(await answerAfterSkip('&preset=least-outstanding'), /looks at the servers' load/);
  const never = await answerAfterSkip('&slow_at_ms=15000&duration_ms=5000');
  assert.match(never, /B does not slow down within this run/);
  assert.doesNotMatch(never, /×/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('slow-server: moving a slider changes the run and the URL', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server`);
  await ready(page);
  await skipToEnd(page);
  const arrivedDefault = await stat(page, 'completed');
  await setSlider(page, 'rate', 60);
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) === 0);
  await skipToEnd(page);
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
  const after = await stat(page, 'p99_ms_after');
  assert.ok(after < 6 * before, `p99 before ${before}, after ${after}`);
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
  // The run advances chunk by chunk; between chunks the page still answers.
  const gap = await page.evaluate(() => new Promise((done) => {
    const t0 = performance.now();
    setTimeout(() => done(performance.now() - t0), 0);
  }));
  assert.ok(gap < 1000, `the page answered after ${gap} ms`);
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 1, null, { timeout: 10000 });
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
