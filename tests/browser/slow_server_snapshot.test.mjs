// Issue 45, item 1 and case 1: the slow-server figure's p99 cards, the ratio under them and the
// verdict show one moment of the run. While the run plays the words change a few times a
// second; the cards they quote change with them, so a frame never shows "3,326 ms" on the card
// beside "to 3,260 ms after it" in the verdict. And item 2: the p99 after the slowdown counts
// the requests still waiting, and says how many.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, holdClock, screenshot, skipToEnd, cliAt, plain, verdictText } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const QUERY = 'sim=slow-server&embed=1';
const num = (text) => Number(text.replace(/,/g, ''));

/** What the frame shows now: the two p99 cards (value, text, note) and the verdict's numbers. */
async function shown(page) {
  const card = (key) => page.$eval(`[data-stat="${key}"]`, (el) => ({
    value: Number(el.dataset.value),
    text: el.querySelector('.value').textContent.trim(),
    note: el.querySelector('.note')?.textContent.trim() ?? '',
  }));
  // Its lead and the sentences behind "Why?" (the figure's, not the prediction's answer).
  const verdict = plain(await verdictText(page, '.verdict[data-verdict]'));
  const said = verdict.match(/from ([\d,.]+) ms before the slowdown \(([\d,]+) requests\) to ([\d,.]+) ms after it \(([\d,]+) requests\): ×([\d.]+)\.(?: ([\d,]+) of the \4 are still waiting, each counted at its wait so far)?/);
  return { before: await card('p99_ms_before'), after: await card('p99_ms_after_with_waiting'), verdict, said };
}

/** The verdict quotes the cards beside it, word for word, and the ratio is theirs. */
function agree({ before, after, verdict, said }, when) {
  assert.ok(said, `${when}: the verdict gives the ratio: ${verdict}`);
  const [, vBefore, , vAfter, , ratio, waiting] = said;
  assert.equal(vBefore, before.text, `${when}: p99 before, card ${before.text} and verdict ${vBefore}`);
  assert.equal(vAfter, after.text, `${when}: p99 after, card ${after.text} and verdict ${vAfter}`);
  assert.equal(num(ratio), Math.round((after.value / before.value) * 10) / 10, `${when}: ×${ratio} is ${after.value} / ${before.value}`);
  assert.ok(after.note.startsWith(`×${ratio} of before`), `${when}: the card's note "${after.note}" gives the verdict's ×${ratio}`);
  const counts = after.note.match(/counts ([\d,]+) still waiting/);
  assert.equal(counts?.[1], waiting, `${when}: the card's note "${after.note}" counts the verdict's waiting`);
  return { ratio: num(ratio), waiting: waiting ? num(waiting) : 0 };
}

test('slow-server: while the run plays and once it ends, the verdict quotes the p99 cards beside it', async () => {
  for (const width of [380, 720]) {
    const page = await openPage(browser, { width, height: 900 });
    await page.clock.install();
    await page.goto(`${server.base}/?${QUERY}`);
    await ready(page);
    await holdClock(page);
    await page.click('[data-action="play"]');
    // Frames between two changes of the words: the verdict is up to 250 ms of wall time old.
    for (const ms of [2600, 430, 1170, 90, 2050]) {
      await page.clock.runFor(ms);
      const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
      if (seconds <= 1.5) continue;
      agree(await shown(page), `${width} px, playing at ${seconds} s`);
    }
    await page.click('[data-action="pause"]');
    await page.clock.runFor(300);
    const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
    const paused = agree(await shown(page), `${width} px, paused at ${seconds} s`);
    // The moment paused at is the core's: the same ratio and the same requests still waiting.
    const run = cliAt(QUERY, Math.round(seconds * 1e6) / 1000);
    assert.deepEqual([paused.ratio, paused.waiting], [run.p99_ratio, run.after_waiting], `${width} px at ${seconds} s`);
    await skipToEnd(page);
    await page.clock.runFor(300);
    const end = agree(await shown(page), `${width} px, at the end`);
    // The chapter's run at its end: 576 requests still wait in B's queue, a fifth of those sent
    // after 1 s, and they are counted (issue 45, case 1).
    const last = cliAt(QUERY, 20000);
    assert.deepEqual([end.ratio, end.waiting], [last.p99_ratio, 576]);
    assert.equal((await shown(page)).after.value, last.p99_ms_after_with_waiting);
    assert.ok(last.p99_ms_after_with_waiting > last.p99_ms_after, 'the waiting are the tail');
    await screenshot(page, `slow-server-snapshot-${width}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});
