// Issue 23: while a run plays, the numbers that are the animation may change every frame, but
// nothing else is rewritten: a legend's swatches never, a timeline's summary for screen readers
// at most once a second, a card's note at the words' pace (at most every 250 ms), and
// retry-storm's dots only by the class of a dot whose client changed. Counted with a
// MutationObserver over 1.5 s of play on the page's own clock (issue 48: the clock is
// Playwright's fake one, which the test moves, so a busy machine changes no count).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, playFor } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** How long each page plays, in milliseconds of the page's own clock. */
const PLAY_MS = 1500;

/** Plays `query` for PLAY_MS of the page's clock and returns what changed, by kind. */
async function churn(query) {
  const page = await openPage(browser, { width: 412, height: 915 });
  await page.clock.install();
  await page.goto(`${server.base}/?${query}`);
  await ready(page);
  await page.waitForSelector('[data-action="play"]:not([disabled])');
  await page.evaluate(() => {
    const seen = { swatch: 0, timelineLabel: 0, dotsMarkup: 0, notes: new Map() };
    window.seen = seen;
    new MutationObserver((list) => {
      for (const m of list) {
        const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
        if (el.closest('.legend') && el.matches('.swatch, .glyph')) seen.swatch++;
        if (m.attributeName === 'aria-label' && el.closest('.timeline')) seen.timelineLabel++;
        if (m.type === 'childList' && el.matches('.dots')) seen.dotsMarkup++;
        const note = el.closest('.stat .note');
        if (note) seen.notes.set(note, (seen.notes.get(note) ?? 0) + 1);
      }
    }).observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
  });
  await playFor(page, PLAY_MS);
  const seen = await page.evaluate(() => ({ ...window.seen, notes: Math.max(0, ...window.seen.notes.values()) }));
  // The run played: a frame every 16 ms of the page's clock, each moving the run by 16 ms × speed.
  const speed = Number(new URLSearchParams(query).get('speed'));
  const clock = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
  assert.ok(clock >= 0.9 * speed * PLAY_MS / 1000, `the run reached ${clock} s in ${PLAY_MS} ms at ${speed}x`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
  return seen;
}

for (const query of ['sim=deadline-chain&embed=1', 'sim=double-click&embed=1', 'sim=which-timeout&embed=1', 'sim=which-timeout']) {
  test(`${query}: a timeline's legend is never rewritten and its summary changes at most once a second`, async () => {
    const seen = await churn(`${query}&duration_ms=3600000&speed=1`);
    assert.equal(seen.swatch, 0, 'legend swatches rewritten');
    assert.ok(seen.timelineLabel <= Math.ceil(PLAY_MS / 1000) + 1, `${seen.timelineLabel} summaries in ${PLAY_MS} ms`);
  });
}

test("retry-storm's page: the dots' markup is written once, and a card's note changes at the words' pace", async () => {
  const seen = await churn('sim=retry-storm&duration_ms=3600000&speed=64');
  assert.equal(seen.dotsMarkup, 0, 'the dots were written anew while playing');
  assert.ok(seen.notes <= Math.ceil(PLAY_MS / 250) + 1, `a note changed ${seen.notes} times in ${PLAY_MS} ms`);
});

test("slow-server's page at 64x: a card's note changes at the words' pace, not every frame", async () => {
  const seen = await churn('sim=slow-server&duration_ms=3600000&speed=64');
  assert.ok(seen.notes > 0, 'the notes changed while playing');
  // About 94 frames in 1.5 s: a note that followed every frame would change 94 times.
  assert.ok(seen.notes <= Math.ceil(PLAY_MS / 250) + 1, `a note changed ${seen.notes} times in ${PLAY_MS} ms`);
});
