// The page says what the core says (issue 24, facts then words): every sentence a page shows
// from its run's reading carries the sentence's key (`data-reading`), and at the end of a run it
// is word for word the `reading` that `resilience-lab run --json` prints for the same scenario,
// preset and seed. The chapters' figures and the sentences' claims are checked on the facts,
// natively (`tests/*_facts.rs`, `tests/golden/words/`): here no number is read out of a sentence,
// the view is checked against the core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, skipToEnd, scenarios, cliRun, plain, readIn, said, playUntil } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const KEYED = '[data-reading], [data-reading-lead], [data-reading-cells]';

/** Every keyed sentence on the page, read as a reader reads it (`readIn`): `{ key, text, lead }`,
 *  `lead` when it shows only the sentence's first sentence (a verdict's companion line). */
const onPage = (page) => page.$$eval(KEYED, (els, readIn) => {
  const read = new Function(`return ${readIn}`)();
  return els.map((el) => ({
    key: el.dataset.reading ?? el.dataset.readingCells ?? el.dataset.readingLead,
    lead: el.dataset.readingLead !== undefined && el.dataset.reading === undefined,
    text: read(el),
  }));
}, readIn.toString());

/** What is wrong with the page's sentences against the core's reading, or nothing. */
function mismatches(shown, reading) {
  const wrong = [];
  for (const { key, text, lead } of shown) {
    const want = plain(said(reading, key));
    const got = plain(text);
    const ok = lead ? want.startsWith(got) && got.length > 0 : got === want;
    if (!ok) wrong.push(`${key}: page "${got}"\n   core "${want}"`);
  }
  return wrong;
}

/** Waits until every keyed sentence says what `reading` says; true if they settled. */
const settle = (page, reading) => page.waitForFunction(
  ([reading, readIn]) => {
    const read = new Function(`return ${readIn}`)();
    return [...document.querySelectorAll('[data-reading], [data-reading-cells]')].every((el) => {
      const want = (el.dataset.reading ?? el.dataset.readingCells).split(' ').map((k) => reading[k] ?? '').join(' ');
      return read(el).replace(/\s+/g, ' ').trim() === want.replace(/\s+/g, ' ').trim();
    });
  },
  [reading, readIn.toString()], { timeout: 5000 },
).then(() => true, () => false);

for (const scenario of scenarios()) for (const [view, width] of [['', 1280], ['&embed=1', 412]]) {
  test(`${scenario.id}${view}: at its defaults and every preset, each sentence on the page is the core's reading`, async () => {
    const page = await openPage(browser, { width, height: 900 });
    for (const preset of [null, ...scenario.presets.map((p) => p.id)]) {
      const query = (preset ? `&preset=${preset}` : '') + view;
      const reading = cliRun(['run', scenario.id, ...(preset ? ['--preset', preset] : []), '--json']).reading;
      await page.goto(`${server.base}/?sim=${scenario.id}${query}`);
      await ready(page);
      await skipToEnd(page);
      // The words follow the end of the run within a frame or two: wait for them, then compare.
      const settled = await settle(page, reading);
      const shown = await onPage(page);
      const where = `?sim=${scenario.id}${query}`;
      assert.ok(shown.some((s) => said(reading, s.key).trim()), `${where}: the page shows none of its reading's sentences`);
      assert.deepEqual(mismatches(shown, reading), [], `${where}: the page and run --json disagree`);
      assert.ok(settled, `${where}: the sentences settled`);
    }
    await page.context().close();
  });
}

for (const scenario of scenarios()) {
  test(`${scenario.id}: played a moment and paused, each sentence on the page is the core's reading at that moment (run --at-ms)`, async () => {
    const page = await openPage(browser, { width: 1280, height: 900 });
    await page.clock.install();
    await page.goto(`${server.base}/?sim=${scenario.id}`);
    await ready(page);
    // Played a little on the page's own clock, then paused: the page has run every event up to
    // the clock's time, as `run --at-ms` does (a Step may stop between two events of the same
    // microsecond).
    await playUntil(page, () => Number(document.querySelector('.play-controls .clock').dataset.value) > 0);
    // A frame already under way when Pause was pressed has run by the second frame after.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
    const atMs = (Math.round(seconds * 1e6) / 1000).toString();
    const reading = cliRun(['run', scenario.id, '--at-ms', atMs, '--json']).reading;
    const settled = await settle(page, reading);
    const shown = await onPage(page);
    assert.deepEqual(mismatches(shown, reading), [], `?sim=${scenario.id} at ${atMs} ms: the page and run --at-ms disagree`);
    assert.ok(settled, 'the sentences settled');
    await page.context().close();
  });
}
