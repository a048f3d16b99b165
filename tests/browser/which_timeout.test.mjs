import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, skipToEnd, stat, timelineLabels, timelineMoments, timelineProblems, untilFinished, cliRun, coreRun, plain, says } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const text = (page, key) => page.getAttribute(`[data-stat="${key}"]`, 'data-value');

// The page's sentences are compared with the core's run of the state the page shows
// (`coreRun`: its `reading` word for word, `says`), and what they claim is checked by value on the
// run's facts, metrics and timers. The tables' cells, which the page words itself from the
// model, are checked as whole strings beside the core's value. No number is read out of text.

/** A timer of the core's run (`timers[]` of `run --json`), by its id. */
const timer = (run, id) => run.timers.find((t) => t.timer === id);

/** A cell of the timer table / of the every-fault table, as shown. */
const timerCell = (page, id, col) => page.textContent(`[data-timer-table] tr[data-timer="${id}"] td[data-col="${col}"]`);
const faultCell = (page, fault, col) => page.textContent(`[data-fault-table] tr[data-fault="${fault}"] td[data-col="${col}"]`);

/** The core's run of `fault` with the settings of `query` (a row of the every-fault table). */
const faultRun = (query, fault) => cliRun(['run', '--url', `?sim=which-timeout&${query}&fault=${fault}`, '--json']);

async function open(query, opts = {}) {
  const page = await openPage(browser, opts);
  await page.goto(`${server.base}/?sim=which-timeout&${query}`);
  await ready(page);
  await page.waitForSelector('#timeline canvas[data-labels]');
  return page;
}

// Chapter 1, Part 2's table "What Node 22 actually does": each preset's error, and its time
// within 2% of the chapter's measured figure.
const ROWS = [
  ['fetch-silent', 'UND_ERR_HEADERS_TIMEOUT', 300_900],
  ['fetch-blackhole', 'UND_ERR_CONNECT_TIMEOUT', 10_500],
  ['fetch-no-tls', 'UND_ERR_CONNECT_TIMEOUT', 10_000],
  ['http-blackhole', 'ETIMEDOUT', 75_000],
  ['abort-silent', 'TimeoutError', 2_007],
  ['abort-trickle', 'TimeoutError', 3_004],
  ['undici-headers-timeout', 'UND_ERR_HEADERS_TIMEOUT', 2_502],
  ['undici-connect-timeout', 'UND_ERR_CONNECT_TIMEOUT', 1_501],
  ['pool-wait', 'TimeoutError', 2_003],
];

test('which-timeout: every preset with a measured error reproduces the chapter\'s row within 2%', async () => {
  const page = await openPage(browser);
  for (const [preset, error, ms] of ROWS) {
    await page.goto(`${server.base}/?sim=which-timeout&preset=${preset}`);
    await ready(page);
    await skipToEnd(page);
    assert.equal(await text(page, 'error'), error, preset);
    const gaveUp = await stat(page, 'gave_up_ms');
    assert.ok(Math.abs(gaveUp - ms) <= 0.02 * ms, `${preset}: gave up at ${gaveUp}, the chapter ${ms}`);
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout: node:http\'s timeout is an event that ends nothing; a trickle defeats bodyTimeout', async () => {
  const page = await open('preset=http-timeout-event');
  await skipToEnd(page);
  assert.equal(await text(page, 'error'), 'timeout-event');
  assert.equal(await stat(page, 'still_open_at_end'), 1);
  const event = timer(await coreRun(page), 'http-timeout');
  assert.ok(event.fired_ms >= 1000 && event.fired_ms < 1010, `the timeout event fired at ${event.fired_ms} ms`);
  assert.equal(event.ended_call, false, 'it ended nothing');
  assert.equal(await timerCell(page, 'http-timeout', 'fired'), '1,004 ms');
  assert.equal(await timerCell(page, 'http-timeout', 'outcome'), 'fired; ended nothing');
  await page.goto(`${server.base}/?sim=which-timeout&preset=body-timeout-trickle`);
  await ready(page);
  await skipToEnd(page);
  assert.equal(await text(page, 'error'), 'none');
  assert.equal(await stat(page, 'still_open_at_end'), 1);
  const body = timer(await coreRun(page), 'body');
  assert.ok(body.resets > 0 && body.fired_ms === null, `the trickle reset bodyTimeout ${body.resets}× and it never fired`);
  assert.equal(await timerCell(page, 'body', 'deadline'), '9,005 ms (reset 7×)');
  assert.equal(await page.getAttribute('[data-phases] li[data-phase="body"]', 'data-state'), 'current');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout: the phase strip, the timer\'s lateness and the retry verdict follow the run', async () => {
  const page = await open('preset=undici-headers-timeout');
  // Before the run: the call is in the first phase, nothing ahead reached.
  assert.equal(await page.getAttribute('[data-phases] li[data-phase="body"]', 'data-state'), 'ahead');
  await skipToEnd(page);
  const states = await page.$$eval('[data-phases] li', (lis) => lis.map((li) => `${li.dataset.phase}:${li.dataset.state}`));
  assert.deepEqual(states, ['pool:passed', 'dns:passed', 'connect:passed', 'tls:passed', 'ttfb:failed', 'body:ahead']);
  // undici's 499 ms clock: the 2 s headers timeout fires about half a second late.
  const run = await coreRun(page);
  const headers = timer(run, 'headers');
  assert.ok(headers.late_ms > 400 && headers.late_ms < 520, `late by ${headers.late_ms} ms`);
  assert.equal(headers.ended_call, true);
  assert.equal(await timerCell(page, 'headers', 'late'), '+497 ms');
  assert.equal(await timerCell(page, 'headers', 'outcome'), 'ended the call');
  // The request reached the server's code: a retry needs a key.
  assert.equal(await stat(page, 'safe_to_retry_without_key'), 0);
  await says(page, '[data-stat="safe_to_retry_without_key"] .note[data-reading="retry_note"]', run.reading.retry_note, "the retry card's note");
  await says(page, '.wt-readings [data-reading="retry"]', run.reading.retry, 'the retry reading');
  assert.ok('key-sent' in run.facts.retry, `a retry needs a key: ${JSON.stringify(run.facts.retry)}`);
  assert.equal(run.facts.reached_server_app, true);
  await says(page, '[data-verdict][data-reading="first"]', run.reading.first, 'the verdict');
  assert.equal(run.facts.first.kind, 'headers', 'the headers timeout fired first');
  await screenshot(page, 'which-timeout-headers');
  await page.goto(`${server.base}/?sim=which-timeout&preset=pool-wait`);
  await ready(page);
  await skipToEnd(page);
  assert.equal(await page.getAttribute('[data-phases] li[data-phase="pool"]', 'data-state'), 'failed');
  assert.equal(await stat(page, 'safe_to_retry_without_key'), 1);
  assert.ok(await stat(page, 'pool_wait_ms') >= 2000);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout: the table of every fault runs each fault with these settings, and a row shows its fault', async () => {
  const page = await open('preset=covered');
  const rows = await page.$$eval('[data-fault-table] tbody tr', (trs) => trs.map((tr) => tr.dataset.fault));
  assert.deepEqual(rows, ['none', 'pool-full', 'dns-slow', 'blackhole', 'refused', 'no-tls', 'silent', 'stall', 'trickle', 'slow']);
  assert.equal(await page.getAttribute('[data-fault-table] tr[data-fault="silent"]', 'aria-current'), 'true');
  // The covered client ends every hang at about half a second: each row's run says so by
  // value, and the row shows it.
  for (const fault of ['blackhole', 'no-tls', 'silent', 'stall', 'trickle']) {
    const run = faultRun('preset=covered', fault);
    assert.equal(run.error, 'TimeoutError', fault);
    assert.ok(run.gave_up_ms >= 500 && run.gave_up_ms < 510, `${fault}: gave up at ${run.gave_up_ms} ms`);
    assert.equal(await faultCell(page, fault, 'caller'), 'TimeoutError at 503 ms', fault);
  }
  const none = faultRun('preset=covered', 'none');
  assert.equal(none.error, 'none');
  assert.ok(none.completed_ms > 0, `completed at ${none.completed_ms} ms`);
  assert.equal(await faultCell(page, 'none', 'caller'), 'completed at 5 ms');
  await page.click('[data-fault-table] tr[data-fault="refused"] button');
  await page.waitForSelector('[data-fault-table] tr[data-fault="refused"][aria-current="true"]');
  await skipToEnd(page);
  assert.equal(await text(page, 'error'), 'ECONNREFUSED');
  assert.equal(await stat(page, 'safe_to_retry_without_key'), 1);
  await page.waitForFunction(() => /fault=refused/.test(location.search));
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout: the table of every fault shows the chapter\'s figure beside its setup, and a dash elsewhere', async () => {
  const chapter = (page, fault) => page.textContent(`[data-fault-table] tr[data-fault="${fault}"] td[data-col="chapter"]`);
  const caller = (page, fault) => page.textContent(`[data-fault-table] tr[data-fault="${fault}"] td[data-col="caller"]`);
  let page = await open('preset=fetch-silent');
  assert.equal(await chapter(page, 'silent'), '300.9 s');
  let run = await coreRun(page);
  assert.equal(run.params.fault, 'silent');
  assert.equal(run.error, 'UND_ERR_HEADERS_TIMEOUT');
  assert.ok(Math.abs(run.gave_up_ms - 300_900) <= 0.02 * 300_900, `gave up at ${run.gave_up_ms} ms`);
  assert.equal(await caller(page, 'silent'), 'UND_ERR_HEADERS_TIMEOUT at 301 s');
  assert.equal(await chapter(page, 'blackhole'), '10.5 s');
  assert.equal(await chapter(page, 'stall'), '—');
  await page.context().close();
  page = await open('preset=abort-silent');
  assert.equal(await chapter(page, 'silent'), '2,007 ms');
  run = await coreRun(page);
  assert.equal(run.error, 'TimeoutError');
  assert.ok(run.gave_up_ms >= 2000 && run.gave_up_ms < 2010, `gave up at ${run.gave_up_ms} ms`);
  assert.equal(await caller(page, 'silent'), 'TimeoutError at 2,003 ms');
  assert.equal(await chapter(page, 'blackhole'), '—');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout at 360 px: the phases, the timeline and both tables fit', async () => {
  const page = await open('preset=abort-silent', { width: 360, height: 800 });
  await skipToEnd(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  const strip = await page.$eval('[data-phases]', (el) => el.getBoundingClientRect().right);
  assert.ok(strip <= 360, 'the phase strip fits');
  await screenshot(page, 'which-timeout-360');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout: the timeline names its lanes Call, Timers and Server, at 1,280 and 360 px', async () => {
  for (const width of [1280, 360]) {
    const page = await openPage(browser, { width, height: 900 });
    for (const run of ['', '&preset=covered', '&preset=body-timeout-trickle']) {
      const moments = await timelineMoments(page, `${server.base}/?sim=which-timeout${run}`);
      for (const [moment, drawn] of Object.entries(moments)) {
        assert.deepEqual(timelineProblems(drawn, ['Call', 'Timers', 'Server']), [], `${run || 'defaults'} at ${width} px, ${moment}`);
      }
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

// A card's value wraps only between words: "TimeoutError" as "Timeout" / "Error", an error code
// after its underscores, never "TimeoutErr" over "or".
test('which-timeout: stat values wrap only between words at 360 px', async () => {
  const page = await openPage(browser, { width: 360, height: 800 });
  for (const preset of ['abort-silent', 'fetch-silent']) {
    await page.goto(`${server.base}/?sim=which-timeout&preset=${preset}`);
    await ready(page);
    await page.click('[data-action="skip"]');
    await untilFinished(page);
    const split = await page.evaluate(() => {
      const found = [];
      for (const value of document.querySelectorAll('.stat .value')) {
        for (const node of value.childNodes) {
          if (node.nodeType !== Node.TEXT_NODE || !node.textContent) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) found.push(`${value.textContent}: "${node.textContent}" on ${lines.size} lines`);
        }
      }
      return found;
    });
    assert.deepEqual(split, [], preset);
    const caller = await page.textContent('[data-stat="error"] .value');
    assert.ok(caller.length > 10, `${preset}: a long error name to wrap (${caller})`);
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Chapter 1, Break 5: a link that opens on a failover leads with its many calls through one
// pool: the chart of calls waiting and answered, the failover's cards and its reading.
test('which-timeout: Break 5\'s figure shows the pool filling, and its fix draining it', async () => {
  for (const width of [412, 360]) {
    const page = await openPage(browser, { width, height: 915 });
    await page.goto(`${server.base}/?sim=which-timeout&preset=ch1-break-5&speed=4&embed=1&controls=fault,client,connect_timeout_ms,headers_timeout_ms,total_timeout_ms`);
    await ready(page);
    await page.waitForSelector('.figure-chart #chart-failover canvas[data-labels]');
    await skipToEnd(page);
    for (const key of ['failover_ok', 'failover_failed', 'failover_pool_full_at_ms', 'failover_slowest_ok_ms']) {
      assert.ok(await page.isVisible(`[data-stat="${key}"]`), `${width} px: the ${key} card is shown`);
    }
    assert.equal(plain(await page.textContent('.lead')), 'Before Play: when is the first call answered, and how many calls wait for a connection?');
    assert.equal(await stat(page, 'failover_pool_full_at_ms'), 180);
    assert.equal(await stat(page, 'failover_ok'), 1490);
    assert.equal(await stat(page, 'failover_failed'), 10);
    const run = await coreRun(page);
    await says(page, '[data-verdict][data-reading="failover_outcome"]', run.reading.failover_outcome, `${width} px: the verdict`);
    assert.deepEqual(run.facts.failover.pool_full, { at_us: 180_000, waiting_max: 516 }, 'the pool was full at 180 ms, and up to 516 calls waited');
    await page.waitForFunction(() => {
      const texts = JSON.parse(document.querySelector('#chart-failover canvas').dataset.labels).map((l) => l.text);
      return texts.includes('pool full at 180 ms') && texts.includes('pool of 10');
    });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= width, `${width} px: the figure is ${wide} px wide`);
    await screenshot(page, `which-timeout-break-5-${width}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
  const page = await open('preset=ch1-break-5-fix');
  await skipToEnd(page);
  assert.equal(await stat(page, 'failover_ok'), 1500);
  assert.equal(await stat(page, 'failover_failed'), 0);
  const run = await coreRun(page);
  await says(page, '[data-verdict][data-reading="failover_outcome"]', run.reading.failover_outcome, 'the verdict');
  assert.equal(run.params.retry_connect, true);
  assert.ok(run.facts.failover.retries > 0 && run.facts.failover.retries === run.facts.failover.hangs.ended?.connects,
    `every hung connect retried at once: ${JSON.stringify(run.facts.failover)}`);
  // The full page keeps the one call's story beside the failover's: the first sentence of it.
  const lead = plain(await page.textContent('[data-reading-lead="first"]'));
  assert.ok(lead.length > 0 && plain(run.reading.first).startsWith(lead), `"${lead}" leads "${run.reading.first}"`);
  assert.equal(run.facts.first.kind, 'connect', "undici's connect timeout fired first");
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout: without a failover there is no failover chart and the cards are the call\'s', async () => {
  const page = await open('preset=fetch-blackhole');
  assert.equal(await page.locator('#chart-failover').count(), 0);
  assert.ok(await page.locator('[data-stat="error"]').count() === 1);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Issue 24, cases 10 and 12: before Play the caller's note says the call has not started (not
// that the pool is full), and the every-fault table's retry column reads each call's state.
test('which-timeout: before Play nothing is claimed of the pool, and the retry column reads each call', async () => {
  const page = await open('preset=fetch-silent');
  const run = await coreRun(page, { paused: true });
  await says(page, '.wt-readings [data-reading="caller"]', run.reading.caller, "the caller's reading");
  assert.equal(run.facts.caller, 'not-started', 'not started, not waiting for a full pool');
  const retry = (fault) => page.textContent(`[data-fault-table] tr[data-fault="${fault}"] td[data-col="retry"]`);
  assert.equal(await retry('none'), 'nothing to retry');
  assert.equal(await retry('pool-full'), 'yes, if given up now: not sent yet');
  assert.equal(await retry('blackhole'), 'yes');
  assert.equal(await retry('silent'), 'no');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Issue 24, case 10: a timer cleared before its deadline stops where it was cleared, marked so,
// instead of an outline counting on to 10 s or 127 s.
test('which-timeout: cleared timers end where they were cleared', async () => {
  const page = await open('preset=abort-trickle');
  await skipToEnd(page);
  await page.waitForFunction(() => JSON.parse(document.querySelector('#timeline canvas').dataset.labels).some((l) => l.text === 'cleared at 3 ms'));
  const texts = JSON.parse(await page.getAttribute('#timeline canvas', 'data-labels')).map((l) => l.text);
  for (const t of ['cleared at 3 ms', 'cleared at 2 ms', 'cleared at 5 ms']) assert.ok(texts.includes(t), `${t}: ${texts.join(' | ')}`);
  // The axis ends with the run (4.1 s), not at a cleared timer's 10 s or 127 s deadline.
  assert.ok(!texts.includes('10 s') && !texts.includes('127 s'), texts.join(' | '));
  const legend = await page.$$eval('#timeline .legend li', (lis) => lis.map((li) => li.textContent));
  assert.ok(legend.includes('●timer cleared'), legend.join(' | '));
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Issue 44: on a run of minutes, the axis is logarithmic from 1 ms, so a timer cleared at 3 ms
// and a headers timeout at 300 s are both legible; a short run keeps a linear axis.
test('which-timeout: a 300 s run draws its milliseconds and its minutes on a log axis', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?sim=which-timeout&embed=1&preset=fetch-silent`);
  await ready(page);
  await skipToEnd(page);
  const { labels, w } = await timelineLabels(page);
  const texts = labels.map((l) => l.text);
  for (const decade of ['1 ms', '10 ms', '100 ms', '1 s', '10 s', '100 s']) assert.ok(texts.includes(decade), `${decade}: ${texts.join(' | ')}`);
  const cleared = labels.find((l) => /^cleared at \d ms$/.test(l.text));
  assert.ok(cleared && cleared.x > w * 0.15, `a timer cleared in milliseconds sits away from the axis's start: ${JSON.stringify(cleared)}`);
  assert.deepEqual(timelineProblems({ labels, w, h: (await timelineLabels(page)).h }), []);
  await page.goto(`${server.base}/?sim=which-timeout&embed=1&preset=fetch-silent&headers_timeout_ms=2000`);
  await ready(page);
  await skipToEnd(page);
  const short = (await timelineLabels(page)).labels.map((l) => l.text);
  assert.ok(!short.includes('10 ms') && short.some((t) => /^\d[\d,]* ms$|^\d+(\.\d+)? s$/.test(t)), `a short run stays linear: ${short.join(' | ')}`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Issue 44: a timer set to 0 reads "off" on the timeline, in the Timers lane, with nothing
// counting in its row; a timer set reads its name alone.
test('which-timeout: a timer set to 0 reads "off" in the Timers lane', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?sim=which-timeout&embed=1&preset=fetch-silent&body_timeout_ms=0`);
  await ready(page);
  await skipToEnd(page);
  const { labels, w, h } = await timelineLabels(page);
  const texts = labels.map((l) => l.text);
  // fetch's AbortSignal total defaults to 0; the body timeout was set to 0 in the link.
  for (const off of ['total off', 'body off']) assert.ok(texts.includes(off), `${off}: ${texts.join(' | ')}`);
  for (const on of ['headers', 'connect']) assert.ok(texts.includes(on) && !texts.includes(`${on} off`), `${on}: ${texts.join(' | ')}`);
  assert.deepEqual(timelineProblems({ labels, w, h }), []);
  await page.goto(`${server.base}/?sim=which-timeout&embed=1&preset=fetch-silent&total_timeout_ms=2000&body_timeout_ms=2000`);
  await ready(page);
  await skipToEnd(page);
  const armed = (await timelineLabels(page)).labels.map((l) => l.text);
  assert.ok(!armed.some((t) => t.endsWith(' off')), `every timer set: ${armed.join(' | ')}`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
