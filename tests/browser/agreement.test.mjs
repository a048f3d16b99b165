// Issue 45, item 6, in the browser: in every simulation's figure, paused mid-run and at the end,
// a card the words quote (`data-quoted-by`, from the scenario's `QUOTES`) shows the command
// line's value at that moment, and the sentence on screen that quotes it states the card's
// number whenever the core's sentence at that moment does. tests/agreement.rs checks the core's
// sentences against the cards at random moments and settings; this checks the page shows one
// moment of both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, playFor, skipToEnd, cliAt, plain, readIn, scenarios } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** `number` ("3,260", "57.6") stands alone in `text`: not inside a longer number. */
const states = (text, number) =>
  new RegExp(`(^|[^\\d.,])${number.replace(/[.$]/g, '\\$&')}(?![\\d]|[.,]\\d)`).test(text);

/** The quoted cards on screen and the sentences that quote them, as a reader sees them now. */
const shown = (page) => page.evaluate((readInSource) => {
  const readIn = new Function(`return ${readInSource}`)();
  return [...document.querySelectorAll('[data-stat][data-quoted-by]')].map((card) => ({
    key: card.dataset.stat,
    value: card.dataset.value,
    text: card.querySelector('.value').textContent.trim(),
    sentences: card.dataset.quotedBy.split(' ').flatMap((reading) =>
      [...document.querySelectorAll(`[data-reading~="${reading}"]`)].map((el) => ({ reading, text: readIn(el) }))),
  }));
}, readIn.toString());

/** The moment the page is paused at, in ms of the run. */
async function moment(page) {
  const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
  return Math.round(seconds * 1e6) / 1000;
}

/** Checks every quoted card on screen against the core at the page's moment; counts the
 *  sentences that quoted a card then. */
async function agree(page, query, when) {
  const atMs = await moment(page);
  const run = cliAt(query, atMs);
  let quoted = 0;
  for (const card of await shown(page)) {
    const want = run[card.key] ?? null;
    assert.equal(card.value === '' ? null : Number(card.value), want, `${query} ${when} (${atMs} ms): ${card.key}'s card`);
    for (const { reading, text } of card.sentences) {
      const core = plain(run.reading[reading]);
      if (!states(core, card.text)) continue;
      assert.ok(states(plain(text), card.text),
        `${query} ${when} (${atMs} ms): the card ${card.key} shows ${card.text}, which \`${reading}\` on screen does not say: ${plain(text)}`);
      quoted += 1;
    }
  }
  return quoted;
}

test('every figure: the words on screen quote the cards beside them, at the same moment', async (t) => {
  const quoted = {};
  for (const { id } of scenarios()) {
    const query = `sim=${id}&embed=1`;
    const page = await openPage(browser, { width: 720, height: 900 });
    await page.clock.install();
    await page.goto(`${server.base}/?${query}`);
    await ready(page);
    quoted[id] = 0;
    // Two moments mid-run, a play of the page's own clock apart, then the end.
    for (const [ms, when] of [[1300, 'paused'], [1700, 'paused later']]) {
      await playFor(page, ms);
      await page.clock.runFor(300);
      quoted[id] += await agree(page, query, when);
    }
    await skipToEnd(page);
    await page.clock.runFor(300);
    quoted[id] += await agree(page, query, 'at the end');
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
  t.diagnostic(`sentences that quoted a card, by figure: ${JSON.stringify(quoted)}`);
  // Not vacuous: the figures whose verdict quotes a card beside it were checked.
  assert.ok(quoted['slow-server'] > 0 && Object.values(quoted).filter((n) => n > 0).length >= 3, JSON.stringify(quoted));
});
