import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, skipToEnd, stat, timelineMoments, timelineProblems, plain, coreRun, saysReading, holdClock } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

async function open(query, opts = {}, { fakeClock = false } = {}) {
  const page = await openPage(browser, opts);
  if (fakeClock) await page.clock.install();
  await page.goto(`${server.base}/?sim=at-least-once&${query}`);
  await ready(page);
  await page.waitForSelector('#timeline canvas[data-labels]');
  return page;
}

// This run's "crash in the middle" cell of the chapter's table (its key: crash_in_the_middle).
const middleCell = '[data-chapter-table] tr[data-row="run"] td[data-col="middle"]';

const fates = async (page) => ({
  lost: await stat(page, 'lost'),
  duplicated: await stat(page, 'duplicated'),
  once: await stat(page, 'effectively_once'),
  skipped: await stat(page, 'skipped_as_duplicate'),
});

test('at-least-once: the chapter\'s three orders, with this run\'s row under the chapter\'s', async () => {
  const page = await open('preset=ack-first');
  await skipToEnd(page);
  let f = await fates(page);
  assert.ok(f.lost > 0 && f.duplicated === 0, `ack then process loses and duplicates none: ${JSON.stringify(f)}`);
  assert.equal(f.lost + f.duplicated + f.once, 1000);
  assert.equal(await page.textContent('[data-chapter-table] tr[data-row="run"] td[data-col="guarantee"]'), 'At-most-once: loses work');
  // The cell is the core's: the crashes after the ack lost their events, never credited.
  let run = await coreRun(page);
  await saysReading(page, run, middleCell);
  assert.equal(run.facts.order, 'ack-then-process');
  assert.ok(run.facts.crashes_between > 0, `${run.facts.crashes_between} crashes after the ack`);
  assert.equal(run.facts.lost_after_ack, f.lost, 'every lost event was lost after the ack');
  assert.ok(await stat(page, 'ledger_difference') < 0, 'the ledger is short');
  assert.ok((await page.$$('.alo-wrong li[data-fate="lost"]')).length > 0, 'the lost events are listed');

  await page.click('[data-preset="process-first"]');
  await skipToEnd(page);
  f = await fates(page);
  assert.ok(f.lost === 0 && f.duplicated > 0, `process then ack duplicates and loses none: ${JSON.stringify(f)}`);
  assert.equal(await page.textContent('[data-chapter-table] tr[data-row="run"] td[data-col="guarantee"]'), 'At-least-once: duplicates work');
  assert.ok(await stat(page, 'ledger_difference') > 0, 'the ledger is over');
  assert.ok((await page.$$('.alo-wrong li[data-fate="duplicated"]')).length > 0, 'the double credits are listed');

  await page.click('[data-preset="txn-dedupe"]');
  await skipToEnd(page);
  f = await fates(page);
  assert.deepEqual([f.lost, f.duplicated, f.once], [0, 0, 1000]);
  assert.ok(f.skipped > 0, 'the redeliveries were skipped');
  assert.equal(await stat(page, 'ledger_difference'), 0);
  assert.equal(await page.getAttribute('[data-chapter-table] tr[data-row="txn-dedupe"]', 'aria-current'), 'true');
  assert.equal(await page.getAttribute('[data-chapter-table] tr[data-row="run"]', 'class'), 'run-row good');
  run = await coreRun(page);
  await saysReading(page, run, '[data-verdict]');
  assert.equal(run.facts.guarantee, 'effectively-once');
  assert.deepEqual([run.facts.lost, run.facts.duplicated, run.facts.once], [0, 0, 1000]);
  assert.equal(await page.getAttribute('[data-wrong-events]', 'data-wrong-events'), '0');
  await screenshot(page, 'at-least-once-txn');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('at-least-once: the chapter\'s details, each in its preset', async () => {
  const page = await openPage(browser);
  const expect = {
    'delivery-id': (f) => f.duplicated > 0,
    'short-window': (f) => f.duplicated > 0,
    'long-jobs': (f) => f.duplicated > 0,
    'long-jobs-lease': (f) => f.duplicated === 0 && f.lost === 0,
  };
  for (const [preset, holds] of Object.entries(expect)) {
    await page.goto(`${server.base}/?sim=at-least-once&preset=${preset}`);
    await ready(page);
    await skipToEnd(page);
    const f = await fates(page);
    assert.ok(holds(f), `${preset}: ${JSON.stringify(f)}`);
  }
  // No consumer crashed, yet jobs longer than the lease were credited twice.
  await page.goto(`${server.base}/?sim=at-least-once&preset=long-jobs`);
  await ready(page);
  await skipToEnd(page);
  assert.equal(await stat(page, 'crashes'), 0);
  assert.ok(await stat(page, 'leases_outlived') > 0);
  // Every event credited twice is one whose job outlived the lease; the list says so of each.
  const run = await coreRun(page);
  assert.equal(run.facts.crashes, 0);
  assert.equal(run.facts.outlived_copies.duplicated, run.facts.duplicated);
  assert.deepEqual(await page.$$eval('.alo-wrong li', (els) => els.map((e) => e.textContent)), [
    'Event 242 $84.00: credited 2× (its job outlived the lease)',
    'Event 366 $18.00: credited 2× (its job outlived the lease)',
    'Event 556 $79.00: credited 2× (its job outlived the lease)',
    'Event 581 $89.00: credited 2× (its job outlived the lease)',
    'Event 623 $42.00: credited 2× (its job outlived the lease)',
    'Event 628 $66.00: credited 2× (its job outlived the lease)',
    'Event 820 $24.00: credited 2× (its job outlived the lease)',
    'Event 910 $32.00: credited 2× (its job outlived the lease)',
  ]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('at-least-once: the deliveries timeline shows crashes, redeliveries and second credits', async () => {
  const page = await open('preset=process-first');
  await skipToEnd(page);
  // Under the picture the timeline may be out of view, where it redraws later: bring it into
  // view, let the page see that (one frame) and draw (the next).
  await page.locator('#timeline').scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
  const labels = JSON.parse(await page.getAttribute('#timeline canvas', 'data-labels')).map((l) => l.text);
  assert.ok(labels.some((t) => t === 'crash'), `a crash is marked: ${labels.join(' | ')}`);
  assert.ok(labels.some((t) => /^credit #2$/.test(t)), 'a second credit is marked');
  assert.ok(labels.some((t) => /^#2 /.test(t)), 'a redelivery has its own row');
  await screenshot(page, 'at-least-once-process-first');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('at-least-once: a redelivery four days later plays without an idle wait', async () => {
  const page = await open('preset=short-window&speed=64', {}, { fakeClock: true });
  await holdClock(page);
  await page.click('[data-action="play"]');
  // Four days at 64x would take 1.5 hours of the page's clock; idle stretches are jumped, so
  // the run ends within a minute of it (10 s when written). The page's clock, not the test's:
  // it moves a frame every 16 ms however busy the machine is.
  const finished = () => page.$eval('.play-controls .clock', (c) => Boolean(c.dataset.end) && Number(c.dataset.value) >= Number(c.dataset.end));
  for (let played = 0; !(await finished()); played += 1000) {
    assert.ok(played < 60000, `not at the end after ${played / 1000} s of the page's clock`);
    await page.clock.runFor(1000);
  }
  assert.ok(await stat(page, 'late_redeliveries') > 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('at-least-once at 360 px: the ledger, the timeline and the table fit', async () => {
  const page = await open('preset=process-first', { width: 360, height: 800 });
  await skipToEnd(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  await screenshot(page, 'at-least-once-360');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Its lanes are the events something happened to, named by event ("Event 12"): there is no
// fixed list, but by the end of every run some lane is drawn with such a name.
test('at-least-once: the timeline names its lanes by event, at 1,280 and 360 px', async () => {
  for (const width of [1280, 360]) {
    const page = await openPage(browser, { width, height: 900 });
    for (const run of ['', '&preset=ack-first', '&preset=long-jobs']) {
      const moments = await timelineMoments(page, `${server.base}/?sim=at-least-once${run}`);
      for (const [moment, drawn] of Object.entries(moments)) assert.deepEqual(timelineProblems(drawn), [], `${run || 'defaults'} at ${width} px, ${moment}`);
      const lanes = moments['at the end'].labels.filter((l) => /^Event [\d,]+$/.test(l.text));
      assert.ok(lanes.length > 0, `${run || 'defaults'} at ${width} px: a lane named by its event at the end`);
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

// Issue 24, case 9: ack-first with no crash shows "effectively once", which says nothing of the
// order: its row in the chapter's table says untested and is marked neither good nor bad.
test('at-least-once: an order no crash tested reads as untested in the chapter\'s table', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=at-least-once&preset=ack-first&crash_rate=0`);
  await ready(page);
  await skipToEnd(page);
  assert.equal(await page.getAttribute('[data-chapter-table] tr[data-row="run"]', 'class'), 'run-row');
  assert.equal(await page.textContent('[data-chapter-table] tr[data-row="run"] td[data-col="guarantee"]'), 'Effectively once, untested: no crash in the middle');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
