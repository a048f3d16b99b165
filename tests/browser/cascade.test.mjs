// The cascade page (Chapter 1 Part 3, "The measured run"): the fix is picked in the parameter
// panel or by a preset (one control), the pools are drawn slot by slot, the chapter's table sits
// beside this run's row, and the tour walks the chapter's seven moments with this run's figures
// at the same moment. Every sentence about the outcome is the run's reading: the cases below
// are runs where the chapter's words would be false.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarios, screenshot, stat, setSlider, untilFinished, plain, coreRun, saysReading, readingOf, viewAs, playUntil, pastSeconds } from './harness.mjs';

// The chapter's timeline (GUIDED_STEPS in src/scenarios/cascade/mod.rs): time and title per step.
const STEPS = [
  [0, 'Recommendations stops answering'],
  [0.2, 'Hung calls pile up'],
  [0.43, 'The pool is full'],
  [0.51, '/checkout starts waiting'],
  [5.51, 'The first checkout fails'],
  [10, 'The load stops'],
  [15.01, 'The last checkout fails'],
];
const PRESETS = ['no-timeout', 'timeout', 'bulkhead', 'both', 'unbounded-pool', 'ch1-break-1', 'ch1-break-1-fix'];

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const near = (actual, expected, tol, what) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tol, `${what}: ${actual}, expected ${expected} ± ${tol}`);

async function open(query, options, { fakeClock = false } = {}) {
  const page = await openPage(browser, options);
  if (fakeClock) await page.clock.install();
  await page.goto(`${server.base}/?sim=cascade${query}`);
  await ready(page);
  await page.waitForSelector('[data-tour-step]');
  return page;
}

async function skip(page) {
  await page.click('[data-action="skip"]');
  await untilFinished(page);
}

const slots = (page, pool, kind) => page.$$eval(`[data-pool="${pool}"] .slots .slot${kind ? '.' + kind : ''}`, (els) => els.length);
const tourStep = async (page) => Number(await page.getAttribute('[data-tour-step]', 'data-tour-step'));
const text = async (page, sel) => (await page.textContent(sel)).trim();
const runRow = (page) => text(page, '[data-run-row]');
const runCells = (page) => page.$$eval('[data-run-row] th, [data-run-row] td', (els) => els.map((e) => e.textContent.trim()));
const verdict = async (page) => (await readingOf(page, '[data-reading="verdict"]')).text;
/**
 * Each sentence (a reading's key, or the selector of an element with data-reading) is word for
 * word the core's `run.reading` for the state the page shows (the words follow a change within a
 * frame or two: waits up to 5 s for them).
 */
async function says(page, run, ...sels) {
  for (const s of sels) await saysReading(page, run, /^[a-z_]+$/.test(s) ? `[data-reading="${s}"]` : s);
}
// The chapter's figures the tour shows beside this run's (the chapter's wording, the page's own).
const chapterFigures = (page) => page.$$eval('[data-tour] .chapter-figure', (els) => els.map((e) => e.textContent.trim()));
// What the tour says about this run: its "This run" lines and its explanation (not the chapter's figures).
const tourRunText = (page) => page.$$eval('[data-tour] .run-figure, [data-tour] [data-tour-explanation]', (els) => els.map((e) => e.textContent).join(' '));
const currentChapterRow = (page) => page.$$eval('.chapter-table tbody tr.current th', (els) => els.map((e) => e.textContent.trim()));
const pickFix = (page, id) => page.click(`label:has(> input[name="variant"][value="${id}"])`);
const noSideways = async (page, what) => {
  const [sw, w] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
  assert.ok(sw <= w, `${what}: the page is ${sw}px wide on a ${w}px screen`);
};

test('no-timeout: the chapter\'s row (479, growing about 48 per second; 4 of 99; 95 failed), a pool full of hung calls', async () => {
  const page = await open('&preset=no-timeout');
  // The caption is the core's, for no fix and one shared pool of 20.
  const start = await coreRun(page, { paused: true });
  await says(page, start, '[data-fix]');
  assert.equal(start.params.variant, 'no-timeout');
  assert.equal(start.params.unbounded_pool, false);
  assert.equal(start.facts.shared.limit, 20);
  assert.equal(start.facts.recs_pool, null);
  await skip(page);
  const n = await stat(page, 'home_in_flight_end');
  near(n, 479, 5, '/home in flight');
  near(await stat(page, 'home_in_flight_growth_per_s'), 48, 2, 'growth');
  assert.equal(await stat(page, 'checkout_ok'), 4);
  assert.equal(await stat(page, 'checkout_failed'), 95);
  near(await stat(page, 'checkout_p99_ms_with_waiting'), 5000, 10, 'p99 (a failure counts as its 5 s)');
  assert.equal(await stat(page, 'pool_in_use_max'), 20);
  assert.equal(await stat(page, 'downstream_open_connections_max'), 20);
  assert.equal(await slots(page, 'shared'), 20);
  assert.equal(await slots(page, 'shared', 'recs'), 20);
  assert.equal(await page.isHidden('[data-pool="recs"]'), true, 'no second pool without a bulkhead');
  assert.deepEqual(await runCells(page), [
    'This run: No timeout, one shared pool of 20', `${n}, growing about 48 per second`, '4 of 99 (the first 0.4 s)', '95',
  ]);
  assert.deepEqual(await currentChapterRow(page), ['No timeout, one shared pool (the chapter)']);
  // The card's note and the verdict are the core's: of 99 sent, the 4 that succeeded were sent in
  // the first 0.4 s; 95 of 99 failed.
  const run = await coreRun(page);
  await says(page, run, '[data-stat="checkout_ok"] .note[data-reading]', 'verdict');
  assert.equal(run.checkout_arrived, 99);
  assert.equal(run.checkout_ok, 4);
  assert.equal(run.checkout_failed, 95);
  assert.equal(run.facts.checkout.failed_queued, 95, 'each failure waited for a connection');
  assert.equal(Math.round(run.last_checkout_ok_sent_ms / 100) / 10, 0.4, 'the last success was sent in the first 0.4 s');
  assert.equal(await page.$('[data-variant]'), null, 'no fix picker on the page: the panel has the one control');
  assert.equal(await page.isChecked('input[name="variant"][value="no-timeout"]'), true);
  await screenshot(page, 'cascade-no-timeout-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('timeout: 15 in flight and flat, 99 of 99, p99 about 10 ms, 0 failed', async () => {
  const page = await open('&preset=timeout');
  await skip(page);
  near(await stat(page, 'home_in_flight_end'), 15, 2, '/home in flight');
  near(await stat(page, 'home_in_flight_growth_per_s'), 0, 0.9, 'growth');
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await stat(page, 'checkout_failed'), 0);
  near(await stat(page, 'checkout_p99_ms_with_waiting'), 10, 1.5, 'p99');
  assert.equal(await slots(page, 'shared', 'recs'), 0, 'no hung call keeps a connection');
  const [label, home, ok, failed] = await runCells(page);
  assert.equal(label, 'This run: 300 ms timeout on recommendations, one shared pool of 20');
  // The row is the core's: 14 or 15 in flight and flat; 99 of 99 with p99 between 10 and 20 ms.
  const run = await coreRun(page);
  await says(page, run, 'row_home', 'row_ok');
  assert.deepEqual([home, ok], [plain(run.reading.row_home), plain(run.reading.row_ok)]);
  assert.ok([14, 15].includes(run.home_in_flight_end), `in flight ${run.home_in_flight_end}`);
  near(run.home_in_flight_growth_per_s, 0, 0.9, 'growth (flat)');
  assert.deepEqual([run.checkout_ok, run.checkout_arrived], [99, 99]);
  assert.ok(run.checkout_p99_ms >= 10 && run.checkout_p99_ms < 20, `p99 ${run.checkout_p99_ms}`);
  assert.equal(failed, '0');
  assert.deepEqual(await currentChapterRow(page), ['300 ms timeout on recommendations, page renders without them (the chapter)']);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('bulkhead: about 480 and still growing, 99 of 99, p99 about 11 ms; two pools drawn', async () => {
  const page = await open('&preset=bulkhead', { width: 390, height: 844, colorScheme: 'dark' });
  await skip(page);
  near(await stat(page, 'home_in_flight_end'), 480, 5, '/home in flight');
  near(await stat(page, 'home_in_flight_growth_per_s'), 48, 2, 'growth');
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await stat(page, 'checkout_failed'), 0);
  near(await stat(page, 'checkout_p99_ms_with_waiting'), 11, 1.5, 'p99');
  assert.equal(await slots(page, 'recs'), 20);
  assert.equal(await slots(page, 'recs', 'recs'), 20, 'the bulkhead is full of hung calls');
  assert.equal(await slots(page, 'shared', 'recs'), 0, 'the shared pool holds none');
  // The row is the core's: 400 to 499 in flight, growing about 48 per second; 99 of 99 with p99
  // between 10 and 20 ms.
  const [, home, ok] = await runCells(page);
  const run = await coreRun(page);
  await says(page, run, 'row_home', 'row_ok');
  assert.deepEqual([home, ok], [plain(run.reading.row_home), plain(run.reading.row_ok)]);
  assert.ok(run.home_in_flight_end >= 400 && run.home_in_flight_end < 500, `in flight ${run.home_in_flight_end}`);
  assert.equal(Math.round(run.home_in_flight_growth_per_s), 48);
  assert.deepEqual([run.checkout_ok, run.checkout_arrived], [99, 99]);
  assert.ok(run.checkout_p99_ms >= 10 && run.checkout_p99_ms < 20, `p99 ${run.checkout_p99_ms}`);
  await noSideways(page, 'bulkhead on a phone');
  await screenshot(page, 'cascade-bulkhead-phone-dark');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('a 5 s timeout is not the chapter\'s 300 ms: about 240 in flight, /checkout p99 about 4,620 ms, and the page says so', async () => {
  const page = await open('&preset=timeout&recs_timeout_ms=5000');
  // The caption is the core's, for a 5 s timeout on recommendations.
  const start = await coreRun(page, { paused: true });
  await says(page, start, '[data-fix]');
  assert.equal(start.params.variant, 'timeout');
  assert.equal(start.params.recs_timeout_ms, 5000);
  await skip(page);
  const n = await stat(page, 'home_in_flight_end');
  near(n, 240, 5, '/home in flight');
  near(await stat(page, 'checkout_p99_ms_with_waiting'), 4620, 50, 'p99');
  const body = await page.textContent('main');
  assert.ok(!body.includes('15 /home in flight, flat, and /checkout is fine'), 'the chapter\'s words for 300 ms are not this run\'s');
  const [label, home, ok, failed] = await runCells(page);
  assert.equal(label, 'This run: 5 s timeout on recommendations, one shared pool of 20');
  assert.equal(home, `${n}, flat`);
  // The row and the verdict are the core's: 99 of 99 with p99 from 4,600 to 4,699 ms, close to the
  // 5 s after which the client gives up, and none failed.
  const run = await coreRun(page);
  await says(page, run, 'row_ok', 'verdict');
  assert.equal(ok, plain(run.reading.row_ok));
  assert.deepEqual([run.checkout_ok, run.checkout_arrived, run.checkout_failed], [99, 99, 0]);
  assert.ok(run.checkout_p99_ms >= 4600 && run.checkout_p99_ms < 4700, `p99 ${run.checkout_p99_ms}`);
  assert.equal(run.facts.checkout.close_to_giving_up, true);
  assert.equal(run.facts.checkout_timeout_ms, 5000);
  assert.equal(failed, '0');
  assert.deepEqual(await currentChapterRow(page), [], 'no chapter row is this run');
  assert.ok(!(await verdict(page)).includes('fail'));
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('recommendations that never stop within the run: nothing says /checkout fails when 99 of 99 succeed', async () => {
  const page = await open('&recs_stops_at_ms=600000');
  await skip(page);
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await stat(page, 'checkout_failed'), 0);
  // The verdict, the row and the tour are the core's: recommendations answers throughout (it would
  // stop at 600 s), 99 of 99 succeed, none fails or waits at the tour's last moment.
  const run = await coreRun(page);
  await says(page, run, 'verdict', 'row_label', 'row_ok', 'tour_checkout', 'tour_recs');
  assert.equal(run.facts.cause, 'answers-throughout');
  assert.equal(run.facts.recs_stops_at_us, 600e6);
  for (const [what, t] of [['verdict', await verdict(page)], ['fix', await text(page, '[data-fix]')], ['tour', await page.textContent('[data-tour] [data-tour-explanation]')]]) {
    assert.ok(!/fail|gave up|never return/.test(t), `${what}: ${t}`);
  }
  const [label, , ok, failed] = await runCells(page);
  assert.deepEqual([label, ok], [plain(run.reading.row_label), plain(run.reading.row_ok)]);
  assert.equal(run.params.recs_stops_at_ms, 600000, 'the changed setting the row names');
  assert.deepEqual([run.checkout_ok, run.checkout_arrived], [99, 99]);
  assert.equal(failed, '0');
  const { counts } = run.facts.tour.moment;
  assert.deepEqual([counts.checkout_ok, counts.checkout_failed, counts.checkout_in_flight], [99, 0, 0]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('unbounded pool: about 480 hung calls are about 481 open connections, drawn small; nothing reads as the pool of 20', async () => {
  const page = await open('&preset=unbounded-pool');
  await skip(page);
  const open_ = await stat(page, 'downstream_open_connections_max');
  near(open_, 481, 5, 'downstream connections');
  assert.equal(await stat(page, 'checkout_failed'), 0);
  near(await slots(page, 'shared'), 481, 5, 'slots drawn');
  assert.ok(await page.$('[data-pool="shared"] .slots.tiny'), 'many slots are drawn small');
  const [label] = await runCells(page);
  assert.equal(label, 'This run: No timeout, no connection limit');
  assert.deepEqual(await currentChapterRow(page), [], 'not the chapter\'s shared pool of 20');
  assert.equal(await tourStep(page), 7);
  const tour = await tourRunText(page);
  assert.ok(!/20 of 20|healthy endpoint died first|fail(ed|s)? /.test(tour.replace(', 0 failed,', '')), tour);
  // The tour's pool, its explanation and the verdict are the core's: no limit, and the page's
  // ${open_} connections open at most on the downstream host.
  const run = await coreRun(page);
  await says(page, run, 'tour_pool', '[data-tour-explanation]', 'verdict');
  assert.equal(run.facts.unbounded_pool, true);
  assert.equal(run.facts.tour.moment.shared.limit, null);
  assert.equal(run.facts.tour.moment.downstream_open, open_);
  assert.equal(run.facts.downstream_open_max, open_);
  assert.equal(run.downstream_open_connections_max, open_);
  await screenshot(page, 'cascade-unbounded-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('the fix is picked in the panel; the run keeps its moment, and the URL follows', async () => {
  const page = await open('');
  await skip(page);
  assert.equal(await stat(page, 'checkout_failed'), 95);
  await pickFix(page, 'timeout');
  await untilFinished(page);
  near(await stat(page, 'time_s'), 15.5, 0.01, 'time after switching');
  assert.equal(await stat(page, 'checkout_ok'), 99);
  assert.equal(await page.isChecked('input[name="variant"][value="timeout"]'), true);
  await page.waitForFunction(() => location.search.includes('variant=timeout'), null, { timeout: 5000 });
  let run = await coreRun(page);
  await says(page, run, '[data-fix]');
  assert.deepEqual([run.params.variant, run.params.recs_timeout_ms], ['timeout', 300]);
  // A slider changes what the caption and the row say.
  await setSlider(page, 'recs_timeout_ms', 1000);
  await untilFinished(page);
  run = await coreRun(page);
  assert.deepEqual([run.params.variant, run.params.recs_timeout_ms], ['timeout', 1000]);
  await says(page, run, '[data-fix]', 'row_label');
  // A preset keeps the moment too.
  await page.click('[data-preset="bulkhead"]');
  await untilFinished(page);
  near(await stat(page, 'time_s'), 15.5, 0.01, 'time after the preset');
  assert.equal(await page.getAttribute('[data-preset="bulkhead"]', 'aria-pressed'), 'true');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('tour: 1 / 7 to 7 / 7 and back; each step is the run at the chapter\'s moment, the chapter\'s figure beside it', async () => {
  const page = await open('');
  assert.equal(await tourStep(page), 1);
  assert.equal(await page.isDisabled('[data-action="tour-back"]'), true);
  assert.deepEqual(await chapterFigures(page), [
    'The chapter: stops answering at 0 s', 'The chapter: 50 per second arrive, each awaits recs', 'The chapter: 0 of 20 used', 'The chapter: 8 ms, fine',
  ]);
  const seen = new Set();
  for (let i = 1; i < STEPS.length; i++) {
    await page.click('[data-action="tour-next"]');
    const [t, title] = STEPS[i];
    assert.equal(await tourStep(page), i + 1);
    assert.equal(await text(page, '[data-tour-step]'), `${i + 1} / 7`);
    near(await stat(page, 'time_s'), t, 1e-6, `time at step ${i + 1}`);
    assert.equal(await text(page, '[data-tour] h2 .step-title'), title, `title at step ${i + 1}`);
    const explanation = await text(page, '[data-tour-explanation]');
    assert.ok(explanation.length > 40 && !seen.has(explanation), `step ${i + 1} explanation: ${explanation}`);
    seen.add(explanation);
    // "This run" is the core's run at the step's moment (the page's clock).
    if (i + 1 === 3) {
      assert.equal(await slots(page, 'shared', 'recs'), 20, 'step 3: the pool is full of hung calls');
      const run = await coreRun(page, { paused: true });
      await says(page, run, 'tour_pool');
      const { shared } = run.facts.tour.moment;
      assert.deepEqual([shared.in_use, shared.limit, shared.recs_held], [20, 20, 20], 'step 3: 20 of 20 in use, 20 by recommendations');
      await screenshot(page, 'cascade-tour-step3-desktop-light');
    }
    if (i + 1 === 5) {
      const run = await coreRun(page, { paused: true });
      await says(page, run, 'tour_home');
      assert.equal(run.facts.tour.moment.counts.home_in_flight, 264, 'step 5: 264 in flight');
    }
    if (i + 1 === 6) {
      assert.deepEqual(await chapterFigures(page), [
        'The chapter: 20 open requests the whole time', 'The chapter: 479 in flight, grew about 48 per second',
        'The chapter: 20 of 20', 'The chapter: 4 succeeded, 45 failed, 50 still waiting',
      ]);
      const run = await coreRun(page, { paused: true });
      await says(page, run, 'tour_home', 'tour_checkout');
      const { counts } = run.facts.tour.moment;
      assert.ok(counts.home_in_flight >= 400 && counts.home_in_flight < 500, `step 6: ${counts.home_in_flight} in flight`);
      assert.equal(counts.home_done, 0, 'step 6: 0 answered');
      assert.deepEqual([counts.checkout_ok, counts.checkout_failed, counts.checkout_in_flight], [4, 45, 50], 'step 6: 4 ok, 45 failed, 50 waiting');
    }
  }
  assert.equal(await page.isDisabled('[data-action="tour-next"]'), true);
  assert.equal(await stat(page, 'checkout_failed'), 95);
  for (let i = STEPS.length - 2; i >= 0; i--) {
    await page.click('[data-action="tour-back"]');
    assert.equal(await tourStep(page), i + 1);
    near(await stat(page, 'time_s'), STEPS[i][0], 1e-6, `time back at step ${i + 1}`);
  }
  assert.equal(await stat(page, 'checkout_failed'), 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('tour: "This run" is the run at the step\'s moment, not at the clock; another fix keeps the moment', async () => {
  const page = await open('', { width: 390, height: 844, colorScheme: 'dark' });
  for (let i = 0; i < 4; i++) await page.click('[data-action="tour-next"]');
  assert.equal(await tourStep(page), 5);
  // Ten steps of 0.1 s: the clock is at 6.5 s, the tour still on 5.51 s.
  for (let i = 0; i < 10; i++) await page.click('[data-action="step"]');
  near(await stat(page, 'time_s'), 6.5, 1e-6, 'the clock');
  assert.equal(await tourStep(page), 5);
  // The core at the clock's 6.5 s: its tour's moment is 5.51 s, with 264 in flight and 0 answered.
  let run = await coreRun(page, { paused: true });
  await says(page, run, 'tour_home');
  assert.equal(run.facts.tour.moment.at, 5510000);
  assert.deepEqual([run.facts.tour.moment.counts.home_in_flight, run.facts.tour.moment.counts.home_done], [264, 0]);
  assert.ok((await stat(page, 'home_in_flight_end')) > 300, 'now there are more');
  await noSideways(page, 'tour on a phone');
  await screenshot(page, 'cascade-tour-step5-phone-dark');
  // Back to the moment, then another fix in the panel: the same moment, and the tour says the
  // chapter's figures are the chapter's.
  await page.click('[data-action="tour-back"]');
  assert.equal(await tourStep(page), 4);
  await pickFix(page, 'timeout');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 0.5, null, { timeout: 5000 });
  near(await stat(page, 'time_s'), 0.51, 1e-6, 'same moment');
  assert.equal(await tourStep(page), 4);
  assert.equal(await text(page, '[data-tour] .tour-note'),
    'The chapter\'s figures are from its measured run: no timeout, one shared pool of 20, its settings (the preset “No timeout”). “This run” is yours at the same moment.');
  assert.equal(await page.isVisible('[data-tour] .tour-note'), true);
  run = await coreRun(page, { paused: true });
  assert.equal(run.params.variant, 'timeout');
  await says(page, run, 'tour_pool', '[data-tour-explanation]');
  assert.equal(run.facts.tour.moment.shared.waiting, 0, '0 calls waiting');
  assert.ok(!(await text(page, '[data-tour-explanation]')).includes('queues behind /home'), 'this run\'s explanation, not the chapter\'s');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('tour step on a phone in light mode; desktop dark at the end', async () => {
  let page = await open('', { width: 390, height: 844 });
  for (let i = 0; i < 2; i++) await page.click('[data-action="tour-next"]');
  assert.equal(await tourStep(page), 3);
  await screenshot(page, 'cascade-tour-step3-phone-light');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  page = await open('', { colorScheme: 'dark' });
  await skip(page);
  assert.equal(await tourStep(page), 7, 'the tour step follows the clock');
  await screenshot(page, 'cascade-no-timeout-desktop-dark');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('a ten-minute load: the run lasts 605.5 s, the row says after 600 s, the tour stays on the chapter\'s moments', async () => {
  const page = await open('&load_ms=600000');
  assert.equal(await text(page, '.play-controls .clock'), '0.0 s / 605.5 s');
  assert.equal(await page.getAttribute('.play-controls .clock', 'data-end'), '605.5');
  await skip(page);
  // The row is the core's: the load setting is named as changed, and /home grows about 48 per
  // second when the load stops after 600 s.
  const [label, home] = await runCells(page);
  const run = await coreRun(page);
  await says(page, run, 'row_label', 'row_home');
  assert.deepEqual([label, home], [plain(run.reading.row_label), plain(run.reading.row_home)]);
  assert.equal(run.params.load_ms, 600000);
  assert.equal(run.facts.load_end_us, 600e6);
  assert.equal(run.duration_ms, 605500);
  assert.equal(Math.round(run.home_in_flight_growth_per_s), 48);
  assert.equal(await tourStep(page), 7);
  // The tour's "This run" is the run at 15.01 s, not at 605.5 s.
  await says(page, run, 'tour_home');
  assert.equal(run.facts.tour.moment.at, 15010000);
  const { counts } = run.facts.tour.moment;
  assert.ok(counts.home_in_flight >= 700 && counts.home_in_flight < 800, `${counts.home_in_flight} in flight at 15.01 s`);
  assert.equal(counts.home_done, 0);
  const n = await stat(page, 'home_in_flight_end');
  assert.ok(n > 20000);
  assert.equal(n, run.home_in_flight_end);
  assert.equal(await page.getAttribute('#chart-home canvas', 'aria-label'),
    `/home handlers in flight. ${n.toLocaleString('en-US')} /home handlers in flight at 605.5 s; 0 answered.`);
  await noSideways(page, 'a long run');
  await screenshot(page, 'cascade-long-run');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('no sideways scroll: every preset at 320 and 360 px, page and embed, before and after skipping to the end', async () => {
  for (const width of [320, 360]) {
    // The figure shows the tour, the table, the pools and the other charts when its link asks for them.
    for (const embed of ['', '&embed=1&show=tour,table,pools,charts']) {
      const page = await openPage(browser, { width, height: 720 });
      for (const { id: preset } of scenarios().find((s) => s.id === 'cascade').presets) {
        await page.goto(`${server.base}/?sim=cascade&preset=${preset}${embed}`);
        await ready(page);
        await page.waitForSelector('[data-tour-step]');
        await noSideways(page, `${preset} ${width}px${embed} before`);
        await skip(page);
        await noSideways(page, `${preset} ${width}px${embed} after`);
      }
      if (width === 360 && embed) await screenshot(page, 'cascade-embed-360');
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});

// The headline is the picture of the pool (issue 44); `chart=home` puts the chart in its place.
test('an embed 720 px tall shows the headline picture, or the chart it asks for, without scrolling (600 px wide and up)', async () => {
  for (const width of [600, 800, 1280]) {
    const page = await openPage(browser, { width, height: 720 });
    for (const [query, headline] of [['', '.figure-chart [data-picture] canvas'], ['&chart=home', '.figure-chart #chart-home canvas']]) {
      await page.goto(`${server.base}/?sim=cascade&embed=1${query}`);
      await ready(page);
      await page.waitForSelector(headline);
      const bottom = await page.evaluate((sel) => document.querySelector(sel).getBoundingClientRect().bottom, headline);
      assert.ok(bottom <= 720, `${width}px${query}: the headline ends at ${bottom}px`);
      if (width === 800 && !query) await screenshot(page, 'cascade-embed-800');
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});

test('an embed\'s fix caption shows every fix\'s whole sentence, from a phone to a chapter column', async () => {
  const hidden = [];
  // One page, every load at its width (`viewAs`).
  const page = await openPage(browser, { width: 320, height: 900 });
  for (const width of [320, 360, 412, 480, 540, 720]) {
    await viewAs(page, { width, height: 900 });
    for (const preset of ['', '&preset=ch1-break-1']) {
      for (const variant of ['no-timeout', 'timeout', 'bulkhead', 'both']) {
        await page.goto(`${server.base}/?sim=cascade&embed=1${preset}&variant=${variant}&recs_timeout_ms=12500&pool_size=100&controls=variant,recs_timeout_ms,pool_size`);
        await ready(page);
        const [full, shown] = await page.$eval('[data-fix]', (e) => [e.scrollHeight, e.clientHeight]);
        if (full > shown) hidden.push(`${width}px ${preset || 'defaults'} ${variant}: ${full} px of text in ${shown}`);
      }
    }
    assert.deepEqual(page.problems(), [], `at ${width} px`);
  }
  await page.context().close();
  assert.deepEqual(hidden, []);
});

test('a recommendations that slows down is not said to stop: the intro and the chart\'s marker', async () => {
  const page = await openPage(browser, { width: 1280 });
  const cases = [
    // Chapter 1's Break 1: from 10 s every call takes 30 s.
    ['&preset=ch1-break-1', 'recommendations slows to 30 s a call at 10 s', 'recommendations slows'],
    ['&recs_stops_at_ms=5000', 'recommendations stops answering at 5 s', 'recommendations stops'],
    // Slowing from 0 s is not the chapter's setting (it stops answering at 0 s).
    ['&recs_latency_ms=2000', 'recommendations slows to 2 s a call at 0 s (in the chapter:', null],
  ];
  for (const [query, intro, marker] of cases) {
    await page.goto(`${server.base}/?sim=cascade${query}`);
    await ready(page);
    await page.click('[data-action="skip"]');
    await untilFinished(page);
    assert.ok(plain(await page.textContent('[data-intro]')).includes(intro), `${query}: ${await page.textContent('[data-intro]')}`);
    // Under the picture the chart may be out of view, where it redraws later: bring it into
    // view, let the page see that (one frame) and draw (the next).
    await page.locator('#chart-home').scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
    const labels = JSON.parse(await page.getAttribute('#chart-home canvas', 'data-labels')).map((l) => l.text);
    const said = labels.filter((l) => l.startsWith('recommendations'));
    assert.deepEqual(said, marker ? [marker] : [], `${query}: ${labels.join(' | ')}`);
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('pool_size at its maximum: 200 slots fit a phone', async () => {
  const page = await open('&pool_size=200', { width: 390, height: 844 });
  await skip(page);
  assert.equal(await slots(page, 'shared'), 200);
  assert.equal(await slots(page, 'shared', 'recs'), 200);
  await noSideways(page, 'pool of 200');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('playing moves the tour step with the clock; the home page lists the scenario and its presets', async () => {
  // Played on the page's own clock: paused within a frame of 1.5 s, however busy the machine.
  const page = await open('', undefined, { fakeClock: true });
  await playUntil(page, pastSeconds, 1.5);
  const t = await stat(page, 'time_s');
  assert.ok(t < 5.51, `paused at ${t} s`);
  assert.equal(await tourStep(page), 4, 'past 0.51 s and before 5.51 s');
  assert.ok((await stat(page, 'home_in_flight_end')) > 50);
  await page.goto(`${server.base}/`);
  await ready(page);
  const presets = await page.$$eval('[data-scenario="cascade"] a.button', (els) => els.map((e) => new URL(e.href).searchParams.get('preset')));
  assert.deepEqual(presets, PRESETS);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
