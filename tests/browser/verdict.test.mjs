// A verdict says what happened in at most 35 words; the rest is behind "Why?" (kit/verdict.rs,
// issue 24: say less). Opened, it shows every sentence the reading has, and in a figure it opens
// inside the verdict's own box: nothing around the figure moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, skipToEnd, scenarioIds, verdictText, cliRun } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const words = (text) => text.trim().split(/\s+/).filter(Boolean).length;

for (const sim of scenarioIds()) {
  for (const [view, width] of [['', 360], ['&embed=1', 360], ['&embed=1', 412]]) {
    test(`${sim}${view} at ${width} px: the verdict leads with at most 35 words, and "Why?" opens the rest in place`, async () => {
      const page = await openPage(browser, { width, height: 800 });
      await page.goto(`${server.base}/?sim=${sim}${view}`);
      await ready(page);
      await skipToEnd(page);
      const lead = page.locator('.verdict .lead').first();
      if ((await lead.count()) === 0) {
        // double-click's board is a verdict of its own, short enough to need no "Why?";
        // slow-server's and retry-storm's full pages answer their prediction instead (the
        // verdict is the figure's).
        if (sim === 'double-click') {
          const board = await page.textContent('[data-verdict]');
          assert.ok(words(board) > 0 && words(board) <= 35, `double-click: a verdict of ${words(board)} words: ${board}`);
        } else {
          assert.ok(!view && ['slow-server', 'retry-storm'].includes(sim), `${sim}${view}: no verdict`);
        }
        await page.context().close();
        return;
      }
      const text = await lead.textContent();
      assert.ok(text.length > 0 && words(text) <= 35, `${sim}: a lead of ${words(text)} words: ${text}`);
      const why = page.locator('.verdict .why summary').first();
      if ((await why.count()) > 0) {
        const rest = page.locator('.verdict .why p').first();
        assert.equal(await rest.isVisible(), false, 'the rest is closed');
        if (view) {
          // The lead and its "Why?" fit the figure's verdict box: a reader sees there is more.
          const fits = await page.$eval('.figure-verdict', (box) => {
            const b = box.getBoundingClientRect();
            return box.querySelector('.why summary').getBoundingClientRect().bottom <= b.bottom + 1;
          });
          assert.ok(fits, '"Why?" is in view in the verdict box before it opens');
        }
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await why.click();
        assert.equal(await rest.isVisible(), true, 'the rest opens');
        if (view) {
          assert.equal(await page.evaluate(() => document.documentElement.scrollHeight), height, 'the figure keeps its height');
          // The verdict's box scrolled to what opened.
          const seen = await page.$eval('.figure-verdict', (box) => {
            const b = box.getBoundingClientRect();
            const r = box.querySelector('.why p').getBoundingClientRect();
            return r.top >= b.top - 1 && r.top < b.bottom;
          });
          assert.ok(seen, 'the opened sentences are in view in the verdict box');
        }
        await screenshot(page, `verdict-${sim}${view ? '-embed' : ''}-${width}`);
      }
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

test('cascade: the lead and the rest are the whole reading, one paragraph a sentence', async () => {
  const reading = cliRun(['run', 'cascade', '--json']).reading.verdict;
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=cascade`);
  await ready(page);
  await skipToEnd(page);
  await page.click('[data-reading="verdict"] .why summary');
  const rest = await page.$$eval('[data-reading="verdict"] .why p', (ps) => ps.map((p) => p.textContent));
  assert.ok(rest.length >= 2, 'more than one sentence behind "Why?"');
  assert.equal(await verdictText(page, '[data-reading="verdict"]'), reading);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
