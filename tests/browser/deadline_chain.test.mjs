import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, stat } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Asserts `actual` is within `tol` of `want`. */
function near(actual, want, tol, what) {
  assert.ok(actual !== null && Math.abs(actual - want) <= tol, `${what}: ${actual}, want ${want} ± ${tol}`);
}

const note = (page, key) => page.textContent(`[data-stat="${key}"] .note`);

async function openPreset(preset, opts = {}) {
  const page = await openPage(browser, opts);
  await page.goto(`${server.base}/?sim=deadline-chain&preset=${preset}`);
  await ready(page);
  await page.waitForSelector('#swimlanes canvas');
  return page;
}

// The chapter's table (Chapter 1 Part 4), within ±5 ms: the model is within 3.5 ms of every
// figure (see the model's doc comment on why it cannot be closer).
test('deadline-chain fixed: the user gets 504 at about 2,004 ms, B gives up at 2,509, C commits at 3,510 for nobody', async () => {
  const page = await openPreset('fixed');
  await page.click('[data-action="skip"]');
  near(await stat(page, 'user_answer_ms'), 2004, 5, 'A answers the user');
  assert.match(await note(page, 'user_answer_ms'), /^504 from A/);
  near(await stat(page, 'b_gives_up_ms'), 2509, 5, 'B gives up on C');
  assert.match(await note(page, 'b_gives_up_ms'), /after the user left/);
  near(await stat(page, 'c_end_ms'), 3510, 5, "C's work ends");
  assert.equal(await note(page, 'c_end_ms'), 'committed, for nobody');
  assert.equal(await stat(page, 'c_budget_told_ms'), null);
  assert.ok((await stat(page, 'wasted_work_ms')) > 1000, 'work for nobody');
  // The chapter's table beside the cards: this mode's column is the current one.
  const cell = (row, mode) => page.textContent(`td[data-row="${row}"][data-mode="${mode}"]`);
  assert.match(await cell('answer', 'fixed'), /^504 at 2,00\d ms$/);
  assert.match(await cell('c_work', 'fixed'), /^Finished and committed at 3,51\d ms, for nobody$/);
  assert.match(await cell('c_work', 'propagated'), /^Stopped at 1,96\d ms/);
  assert.equal(await page.getAttribute('td[data-row="answer"][data-mode="fixed"]', 'class'), 'current');
  assert.match(await page.textContent('[data-verdict]'), /for nobody/);
  assert.ok((await page.$$('[data-moments] li')).length >= 12, 'the list of moments');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('deadline-chain propagated: B\'s 504 reaches the user at about 1,966 ms, C told 1,448 ms and stopped', async () => {
  const page = await openPreset('propagated');
  await page.click('[data-action="skip"]');
  near(await stat(page, 'user_answer_ms'), 1966, 5, 'A answers the user');
  assert.match(await note(page, 'user_answer_ms'), /^504 from B/);
  near(await stat(page, 'b_gives_up_ms'), 1963, 5, 'B gives up on C');
  near(await stat(page, 'c_end_ms'), 1966, 5, "C's work ends");
  assert.equal(await note(page, 'c_end_ms'), 'stopped (caller left)');
  near(await stat(page, 'c_budget_told_ms'), 1448, 0, 'C was told');
  assert.equal(await stat(page, 'wasted_work_ms'), 0);
  const moments = await page.textContent('[data-moments]');
  assert.match(moments, /B calls C with x-request-timeout-ms: 1448/);
  assert.equal(await page.getAttribute('td[data-row="answer"][data-mode="propagated"]', 'class'), 'current');
  // Zoomed on the end of the user's budget, where the chain unwinds.
  await page.click('[data-zoom="end"]');
  assert.equal(await page.getAttribute('[data-zoom="end"]', 'aria-pressed'), 'true');
  assert.match(await page.textContent('[data-zoom="end"]'), /1,850 to 2,020 ms/);
  await screenshot(page, 'deadline-chain-propagated-zoom-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('deadline-chain: the mode switch changes the run and keeps a finished run finished', async () => {
  const page = await openPreset('fixed');
  await page.click('[data-action="skip"]');
  await page.click('[data-mode-switch] input[value="propagated"]', { force: true });
  await page.waitForFunction(() => document.querySelector('[data-stat="c_budget_told_ms"]').dataset.value === '1448');
  near(await stat(page, 'user_answer_ms'), 1966, 5, 'A answers the user after switching');
  assert.equal(await stat(page, 'time_s'), 4);
  assert.equal(await page.isChecked('input[name="mode"][value="propagated"]'), true, 'the panel follows the switch');
  await page.waitForFunction(() => location.search.includes('mode=propagated'), null, { timeout: 5000 });
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('deadline-chain: stepping goes one event at a time, then play carries on', async () => {
  const page = await openPreset('propagated');
  await page.click('[data-action="step"]');
  const first = await stat(page, 'time_s');
  assert.ok(first > 0 && first < 0.01, `first event at ${first} s`);
  await page.click('[data-action="step"]');
  await page.click('[data-action="step"]');
  assert.ok((await stat(page, 'time_s')) > first);
  assert.ok((await page.$$('[data-moments] li')).length >= 3);
  // Playing moves the playhead on from there.
  await page.click('[data-action="play"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 0.3, null, { timeout: 10000 });
  await page.click('[data-action="pause"]');
  assert.match(await page.textContent('[data-moments]'), /A calls B with x-request-timeout-ms: 1799/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('deadline-chain: the wrong-order preset loads: the browser gives up first, C commits for nobody', async () => {
  const page = await openPreset('wrong-order');
  assert.equal(await page.getAttribute('[data-preset="wrong-order"]', 'aria-pressed'), 'true');
  await page.click('[data-action="skip"]');
  assert.equal(await stat(page, 'user_answer_ms'), null);
  assert.match(await note(page, 'user_answer_ms'), /browser gave up at 2,00\d ms/);
  assert.equal(await note(page, 'c_end_ms'), 'committed, for nobody');
  await screenshot(page, 'deadline-chain-wrong-order-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('deadline-chain: screenshots, desktop and phone, light and dark', async () => {
  for (const [w, h, name] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
    for (const colorScheme of ['light', 'dark']) {
      for (const preset of ['fixed', 'propagated']) {
        const page = await openPreset(preset, { width: w, height: h, colorScheme });
        await page.click('[data-action="skip"]');
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= w, `page is ${width}px wide on a ${w}px screen`);
        await screenshot(page, `deadline-chain-${preset}-${name}-${colorScheme}`);
        assert.deepEqual(page.problems(), []);
        await page.context().close();
      }
    }
  }
  // Mid-run, with the playhead and the budgets still shrinking.
  const page = await openPreset('propagated');
  for (let i = 0; i < 7; i++) await page.click('[data-action="step"]');
  await screenshot(page, 'deadline-chain-propagated-midrun-desktop');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
