// Issue 45, cases 2, 11 and 12, and items 1 and 4: at a paused moment (412 px) every number,
// label and sentence of the figure is of that moment, and what the words quote is what the cards
// show and what `run --at-ms` says; while every figure plays, its cards and sentences are one
// snapshot of the run. cascade: /checkout's p99 counts the clients still waiting and says so,
// and the charts' and the picture's words name the clock's moment. at-least-once: "none twice"
// only of now, and where a parked event's money is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, pausedPicture, screenshot, cliAt, cliRun, plain, verdictText, ready, skipToEnd, holdClock, readIn, said, scenarios } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** A card as the page shows it: its value, its text and its note. */
const card = (page, key) => page.$eval(`[data-stat="${key}"]`, (el) => ({
  value: Number(el.dataset.value),
  text: el.querySelector('.value').textContent.trim(),
  note: el.querySelector('.note')?.textContent.trim() ?? '',
}));

// Seconds as the page writes them: at most two decimals, no trailing zeros ("4.1 s").
const secs = (ms) => `${(ms / 1000).toFixed(2).replace(/0+$/, '').replace(/\.$/, '')} s`;

test('cascade at 4 s (412 px): the p99 counts the 35 still waiting, and every chart names the clock\'s moment', async () => {
  const query = 'sim=cascade';
  const page = await openPage(browser, { width: 412, height: 900 });
  const { atMs } = await pausedPicture(page, server.base, query, 4000);
  const run = cliAt(query, atMs);
  assert.ok(run.checkout_waiting > 20 && run.checkout_ok === 4, `at ${atMs} ms: ${run.checkout_ok} ok, ${run.checkout_waiting} waiting`);
  // The card is the core's p99 counting the waiting, far above the four that got through.
  const p99 = await card(page, 'checkout_p99_ms_with_waiting');
  assert.equal(p99.value, run.checkout_p99_ms_with_waiting);
  assert.ok(p99.value > 100 * run.checkout_p99_ms, `${p99.value} against ${run.checkout_p99_ms} finished only`);
  const waiting = run.checkout_waiting.toLocaleString('en-US');
  assert.equal(p99.note, plain(run.reading.note_p99));
  assert.ok(p99.note.endsWith(`counts ${waiting} still waiting at their wait so far`), p99.note);
  const ok = await card(page, 'checkout_ok');
  assert.ok(ok.note.endsWith(`, ${waiting} waiting`), `the card beside it: ${ok.note}`);
  // The verdict quotes the card as the card shows it.
  const verdict = plain(await verdictText(page, '[data-reading="verdict"]'));
  assert.ok(verdict.includes(`p99 ${p99.text} ms.`), `${p99.text}: ${verdict}`);
  assert.ok(verdict.includes(`The p99 counts ${waiting} still waiting at their wait so far.`), verdict);
  // Every chart's words, and the picture's, are of the moment on the clock, and say it.
  const moment = new RegExp(`\\bat ${secs(atMs).replace('.', '\\.')}\\b`, 'i');
  for (const sel of ['#chart-home canvas', '#chart-pool canvas', '#chart-waiting canvas', '#chart-checkout canvas', '[data-picture] canvas']) {
    const label = await page.getAttribute(sel, 'aria-label');
    assert.match(label, moment, `${sel} at ${atMs} ms: ${label}`);
  }
  const checkout = await page.getAttribute('#chart-checkout canvas', 'aria-label');
  assert.ok(checkout.includes(`${run.checkout_ok} succeeded, ${run.checkout_failed} failed, ${waiting} waiting`), checkout);
  await screenshot(page, 'one-moment-cascade-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('cascade while it plays (412 px): the cards and the verdict that quotes them show one moment', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.clock.install();
  await page.goto(`${server.base}/?sim=cascade`);
  await ready(page);
  await holdClock(page);
  await page.click('[data-action="play"]');
  // Frames between two changes of the words: the words are up to 250 ms of wall time old.
  for (const ms of [1300, 430, 1170, 90, 2050]) {
    await page.clock.runFor(ms);
    const verdict = plain(await verdictText(page, '[data-reading="verdict"]'));
    const [p99, ok, home] = [await card(page, 'checkout_p99_ms_with_waiting'), await card(page, 'checkout_ok'), await card(page, 'home_in_flight_end')];
    const when = `playing, ${ms} ms on`;
    assert.ok(verdict.includes(`succeeded, p99 ${p99.text} ms`) || !verdict.includes('succeeded, p99'), `${when}: card ${p99.text}: ${verdict}`);
    assert.ok(verdict.includes(`${ok.text} of `), `${when}: card ${ok.text}: ${verdict}`);
    assert.ok(verdict.includes(`: ${home.text}, growing`) || verdict.includes(`: ${home.text}.`), `${when}: card ${home.text}: ${verdict}`);
    const waiting = ok.note.match(/, ([\d,]+) waiting$/)?.[1];
    if (waiting) assert.ok(p99.note.includes(`counts ${waiting} still waiting`), `${when}: ${ok.note} / ${p99.note}`);
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

/** What the figure shows in one frame: the moment its words were taken at, every card's value
 *  and each sentence (`data-reading`) as a reader reads it. */
const frame = (page) => page.evaluate((readInSource) => {
  const readIn = new Function(`return ${readInSource}`)();
  return {
    atUs: Number(document.querySelector('[data-words-at]').dataset.wordsAt),
    cards: [...document.querySelectorAll('[data-stat]')].map((el) => ({ key: el.dataset.stat, value: el.dataset.value })),
    sentences: [...document.querySelectorAll('[data-reading]')].map((el) => ({ keys: el.dataset.reading, text: readIn(el) })),
  };
}, readIn.toString());

// Issue 45, items 1 and 4: while each of the figures plays, its cards and its sentences are one
// snapshot of the run, taken at one simulated instant (`data-words-at`, which changes with them):
// at frames between two changes of the words, every card shows the core's value at that instant
// (`run --at-ms`), and every sentence is the core's, word for word.
test('every figure while it plays (412 px): the cards and the sentences are one moment of the run', async (t) => {
  const checked = {};
  for (const { id } of scenarios()) {
    const query = `sim=${id}&embed=1`;
    const page = await openPage(browser, { width: 412, height: 900 });
    await page.clock.install();
    await page.goto(`${server.base}/?${query}`);
    await ready(page);
    await holdClock(page);
    await page.click('[data-action="play"]');
    checked[id] = 0;
    for (const ms of [1300, 430, 90]) {
      await page.clock.runFor(ms);
      const { atUs, cards, sentences } = await frame(page);
      const run = cliAt(query, atUs / 1000);
      const when = `${id} playing, the words of ${atUs / 1000} ms`;
      // Every metric's card (the play bar's clock, `time_s`, is the animation's, not a metric).
      for (const { key, value } of cards.filter((c) => c.key in run)) {
        // `data-value` is the raw number, 1 or 0 for yes or no, or the text of a word.
        const want = typeof run[key] === 'boolean' ? Number(run[key]) : run[key] ?? null;
        const got = value === '' ? null : typeof want === 'string' ? value : Number(value);
        assert.equal(got, want, `${when}: the card ${key}`);
      }
      for (const { keys, text } of sentences.filter((s) => s.keys.split(' ').every((k) => k in run.reading))) {
        assert.equal(plain(text), plain(said(run.reading, keys)), `${when}: \`${keys}\` on screen`);
        checked[id] += 1;
      }
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
  t.diagnostic(`sentences checked, by figure: ${JSON.stringify(checked)}`);
  assert.ok(Object.values(checked).every((n) => n > 0), JSON.stringify(checked));
});

test('at-least-once mid-run (412 px): the cards are the verdict\'s moment, and "none twice" is only of now', async () => {
  const query = 'sim=at-least-once&embed=1';
  const page = await openPage(browser, { width: 412, height: 900 });
  const { atMs } = await pausedPicture(page, server.base, query, 4000);
  const run = cliAt(query, atMs);
  assert.ok(atMs > 15000 && !run.facts.settled, `paused mid-run at ${atMs} ms`);
  const verdict = plain(await verdictText(page));
  assert.equal(verdict, plain(run.reading.answer));
  // The card the verdict quotes shows the verdict's number.
  const once = await card(page, 'effectively_once');
  assert.equal(once.value, run.effectively_once);
  assert.ok(verdict.startsWith(`Effectively once so far: ${once.text} events credited exactly once`), `${once.text}: ${verdict}`);
  // Events credited and left unacked by a crash: their copy is credited again when processed,
  // so the verdict does not say "none twice." as if it were settled.
  const n = run.facts.credited_unacked;
  assert.ok(n > 0, `credited and unacked at ${atMs} ms: ${n}`);
  assert.ok(verdict.includes('none twice yet.'), verdict);
  assert.ok(verdict.includes(`${n} more ${n === 1 ? 'event was' : 'events were'} credited once, and a crash between the credit and the ack left`), verdict);
  assert.ok(!verdict.includes('the broker redelivered it'), verdict);
  await screenshot(page, 'one-moment-at-least-once-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('at-least-once, every delivery crashing (412 px): the verdict says where the missing money is', async () => {
  const query = 'sim=at-least-once&embed=1&crash_rate=100&order=txn-dedupe';
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?${query}`);
  await ready(page);
  await skipToEnd(page, 60000);
  const run = cliRun(['run', '--url', '?sim=at-least-once&crash_rate=100&order=txn-dedupe', '--json']);
  const lost = await card(page, 'lost');
  assert.equal(lost.value, 0, 'none lost');
  const { parked, parked_usd: usd, ledger_difference: diff } = run.facts;
  assert.ok(parked > 0 && usd > 0 && diff === -usd, `${parked} parked with $${usd}, the ledger ${diff}`);
  const verdict = plain(await verdictText(page));
  assert.equal(verdict, plain(run.reading.answer));
  const dollars = `$${usd.toLocaleString('en-US')}`;
  assert.ok(verdict.startsWith(`Nothing lost or credited twice, but ${parked} events were never credited: the ledger is ${dollars} short, their amounts, parked in the dead-letter queue.`), verdict);
  await screenshot(page, 'one-moment-parked-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

