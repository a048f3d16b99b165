import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ready, screenshot, shots, stat, scenarios, timelineMoments, timelineProblems, untilFinished } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const text = (page, sel) => page.textContent(sel);
const events = async (page) => Number(await page.getAttribute('[data-last-event]', 'data-events'));
const outcome = (page) => page.getAttribute('[data-stat="client_outcome"]', 'data-value');

async function open(query = '', opts = {}) {
  const page = await openPage(browser, opts);
  await page.goto(`${server.base}/?sim=double-click${query}`);
  await ready(page);
  await page.waitForSelector('#timeline canvas[data-labels]');
  return page;
}

async function skip(page) {
  await page.click('[data-action="skip"]');
  await untilFinished(page);
}

/** Picks the fix in the parameter panel: the page's one control for it. */
async function chooseFix(page, fix) {
  await page.click(`fieldset.segmented label:has(input[name="fix"][value="${fix}"])`);
  assert.equal(await page.isChecked(`input[name="fix"][value="${fix}"]`), true);
}

/** What the verdict must say, from the metrics on the cards. */
function expected(told, charges) {
  const buyer = {
    paid: 'The buyer saw \u201cpaid\u201d', failed: 'The buyer was told the payment failed',
    processing: 'The buyer was told the payment is processing', rejected: 'The buyer saw an error',
  }[told];
  const card = ['the card was not charged', 'the card was charged once', 'the card was charged twice'][charges]
    ?? `the card was charged ${charges} times`;
  return { buyer, card };
}

test('double-click: the fix in the panel gives the chapter\'s 3, 2 and 1 charges, and the verdict reads true', async () => {
  const page = await open();
  assert.equal(await page.$$eval('input[type="radio"][value="disable"]', (r) => r.length), 1, 'one control for the fix');
  for (const [fix, charges, told, chapter] of [
    ['none', 3, 'failed', "The chapter: 3, no fix"],
    ['disable', 2, 'failed', "The chapter: 2, button disabled"],
    ['key', 1, 'paid', "The chapter: 1, one key"],
  ]) {
    await chooseFix(page, fix);
    assert.equal(await stat(page, 'card_charged'), 0, `${fix}: a new choice starts a new run`);
    await skip(page);
    assert.equal(await stat(page, 'card_charged'), charges, `fix=${fix}`);
    assert.equal(await outcome(page), told, `fix=${fix}`);
    assert.equal(await text(page, '[data-stat="card_charged"] .note'), chapter);
    assert.equal(await text(page, '[data-stat="card_charged"] .unit'), charges === 1 ? 'time' : 'times');
    const verdict = await text(page, '[data-verdict]');
    const want = expected(told, charges);
    assert.ok(verdict.startsWith(want.buyer) && verdict.includes(want.card), `${fix}: ${verdict}`);
    assert.equal(await page.getAttribute('[data-verdict]', 'class'), charges === 1 ? 'verdict good' : 'verdict bad');
    await page.waitForFunction((f) => location.search.includes(f === 'none' ? 'sim=double-click' : `fix=${f}`), fix);
  }
  // With the key, the list tells the whole story: the duplicate's claim waits for the first
  // transaction, as Postgres's INSERT … ON CONFLICT does, then replays its answer.
  const table = await text(page, '[data-events-table]');
  assert.match(table, /meets the claim of a transaction that has not committed, and waits for it/);
  assert.match(table, /replays the stored answer, 200 with ch_1/);
  assert.equal(await text(page, '.dc-message'), 'Thank you! Receipt ch_1.');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: for every preset, what the buyer was told and the charges match the cards', async () => {
  const page = await open();
  const presets = scenarios().find((s) => s.id === 'double-click').presets.map((p) => p.id);
  for (const preset of presets) {
    await page.click(`[data-preset="${preset}"]`);
    await skip(page);
    const told = await outcome(page);
    const charges = await stat(page, 'card_charged');
    const want = expected(told, charges);
    const verdict = await text(page, '[data-verdict]');
    assert.ok(verdict.startsWith(want.buyer), `${preset}: ${verdict} (told ${told})`);
    assert.ok(verdict.includes(want.card), `${preset}: ${verdict} (${charges} charges)`);
    // The breaks' presets hold claims, retry more and run a recovery job: their runs are as
    // long as those need (tests/double_click.rs checks each settles within it).
    if (preset.startsWith('ch2-break')) {
      assert.ok((await stat(page, 'time_s')) >= 8, `${preset}: at least an 8 s run`);
    } else {
      assert.equal(await stat(page, 'time_s'), 8, `${preset}: an 8 s run`);
    }
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: the Part 3 table preset shows 3 charges without a key and 1 with it', async () => {
  const page = await open();
  await page.click('[data-preset="part3-table"]');
  await skip(page);
  assert.equal(await stat(page, 'card_charged'), 3);
  assert.equal(await stat(page, 'timeouts_seen'), 3);
  assert.equal(await stat(page, 'server_requests'), 3);
  assert.equal(await outcome(page), 'failed');
  assert.match(await text(page, '[data-verdict]'), /told the payment failed; the card was charged 3 times/);
  // The chapter's keyed row (TimeoutError, then 409 while the first attempt runs, then the
  // replay) is a claim committed before the work: its own preset.
  await page.click('[data-preset="part3-table-key"]');
  await skip(page);
  assert.equal(await stat(page, 'card_charged'), 1);
  assert.equal(await stat(page, 'timeouts_seen'), 1);
  assert.equal(await stat(page, 'conflicts_409'), 1);
  assert.equal(await stat(page, 'replays'), 1);
  assert.equal(await stat(page, 'server_requests'), 3);
  // The same run with the claim in the charge's transaction (Postgres, the default): the retry
  // waits for the first commit instead of a 409, and gets the replay.
  await page.click('[data-preset="part3-table"]');
  await chooseFix(page, 'key');
  await skip(page);
  assert.equal(await stat(page, 'card_charged'), 1);
  assert.equal(await stat(page, 'conflicts_409'), 0);
  assert.equal(await stat(page, 'replays'), 1);
  assert.match(await text(page, '[data-events-table]'), /after waiting [\d,]+ ms, gets no row/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: step advances one event at a time, and says what happened', async () => {
  const page = await open();
  assert.equal(await events(page), 0);
  assert.equal(await page.$$eval('[data-events-table] tbody tr', (r) => r.length), 0);
  await page.click('[data-action="step"]');
  assert.equal(await events(page), 1);
  // One simulator event can show as several rows; the status numbers them as the list does.
  assert.match(await text(page, '[data-last-event]'), /^Events 1–2, at 0 ms: The buyer clicks Pay\. Click 1's helper sends attempt 1/);
  assert.equal(await stat(page, 'client_attempts'), 1);
  assert.equal(await stat(page, 'server_requests'), 0);
  await page.click('[data-action="step"]');
  assert.equal(await events(page), 2);
  assert.equal(await stat(page, 'time_s'), 0.02);
  assert.equal(await stat(page, 'server_requests'), 1);
  assert.match(await text(page, '[data-last-event]'), /at 20 ms: The server receives click 1's attempt 1/);
  assert.ok(await page.$$eval('[data-events-table] tr.latest', (r) => r.length) >= 1);
  await screenshot(page, 'double-click-step-desktop');
  for (let n = 3; (await stat(page, 'card_charged')) === 0; n++) {
    await page.click('[data-action="step"]');
    assert.equal(await events(page), n);
    assert.ok(n < 30, 'the first charge commits within a few events');
  }
  assert.match(await text(page, '[data-last-event]'), /commits ch_1/);
  await page.locator('#timeline').screenshot({ path: join(shots, 'double-click-timeline-midrun.png') });
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: play runs at half speed by default and stops when nothing is left', async () => {
  const page = await open('&speed=4');
  await page.click('[data-action="play"]');
  await page.waitForSelector('[data-action="pause"]');
  // It stops by itself: the button says Play again, with the clock at the run's end.
  await page.waitForSelector('[data-action="play"]', { timeout: 20000 });
  await untilFinished(page, 1000);
  assert.equal(await stat(page, 'time_s'), 8);
  assert.equal(await stat(page, 'card_charged'), 3);
  const over = (await text(page, '[data-last-event]')).match(/The run is over \((\d+) events\)/);
  assert.ok(over, 'the status says the run is over');
  const listed = (await page.locator('summary', { hasText: 'Every event so far' }).textContent()).match(/Every event so far \((\d+)\)/);
  assert.equal(over[1], listed[1]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();

  const slow = await open();
  assert.equal(await slow.$eval('select[name="speed"]', (s) => s.value), '0.5');
  assert.deepEqual(slow.problems(), []);
  await slow.context().close();
});

test('double-click: the backoff\'s help is in plain words', async () => {
  const page = await open();
  const help = await text(page, '#help-backoff_ms');
  assert.doesNotMatch(help, /[×^]|2\^/);
  assert.match(help, /twice as long/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

for (const [width, height, device] of [[1280, 900, 'desktop'], [360, 800, 'phone']]) {
  for (const scheme of ['light', 'dark']) {
    test(`double-click on ${device}, ${scheme}: fits and draws`, async () => {
      const page = await open('', { width, height, colorScheme: scheme });
      await skip(page);
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scroll <= width, `page is ${scroll}px wide on a ${width}px screen`);
      const canvas = await page.$eval('#timeline canvas', (c) => [c.width, c.height]);
      assert.ok(canvas[0] > 200 && canvas[1] > 150, `canvas ${canvas}`);
      await screenshot(page, `double-click-${device}-${scheme}`);
      await page.locator('#timeline').screenshot({ path: join(shots, `double-click-timeline-${device}-${scheme}.png`) });
      await chooseFix(page, 'key');
      await skip(page);
      await page.locator('#timeline').screenshot({ path: join(shots, `double-click-timeline-key-${device}-${scheme}.png`) });
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

test('double-click: the timeline names its lanes Page, Helper, Server and Card, at 1,280 and 360 px', async () => {
  for (const width of [1280, 360]) {
    const page = await openPage(browser, { width, height: 900 });
    for (const run of ['', '&preset=key', '&preset=same-ms-race']) {
      const moments = await timelineMoments(page, `${server.base}/?sim=double-click${run}`);
      for (const [moment, drawn] of Object.entries(moments)) {
        assert.deepEqual(timelineProblems(drawn, ['Page', 'Helper', 'Server', 'Card']), [], `${run || 'defaults'} at ${width} px, ${moment}`);
      }
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});
