// The kit's timeline on every page that draws one (each simulation of the registry is opened, and
// its page checked if it has a #timeline): the label boxes it drew (the canvas's data-labels)
// never overlap and never cross the canvas edge, at 1,280 and 360 px, at the defaults and every
// preset, before Play, mid-run, at the end, and at every zoom the page offers. Each page's own
// lane names are checked in its own test file (timelineMoments and timelineProblems, harness.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ready, shots, scenarios, timelineLabels, timelineMoments, timelineProblems, viewAs } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Whether the simulation's page draws a timeline. */
async function hasTimeline(page, id) {
  await page.goto(`${server.base}/?sim=${id}`);
  await ready(page);
  await page.waitForSelector(`.sim[data-scenario="${id}"]`);
  return (await page.$('#timeline')) !== null;
}

for (const s of scenarios()) {
  for (const width of [1280, 360]) {
    test(`${s.id} at ${width} px: if it draws a timeline, no two labels overlap and none is cut`, async (t) => {
      const page = await openPage(browser, { width, height: 900 });
      if (!await hasTimeline(page, s.id)) {
        t.skip('no timeline on this page');
        await page.context().close();
        return;
      }
      for (const preset of [null, ...s.presets.map((p) => p.id)]) {
        const run = `${s.id}${preset ? ` preset=${preset}` : ''}`;
        const moments = await timelineMoments(page, `${server.base}/?sim=${s.id}${preset ? `&preset=${preset}` : ''}`);
        for (const [moment, drawn] of Object.entries(moments)) assert.deepEqual(timelineProblems(drawn, [], 8), [], `${run} ${moment}`);
        assert.ok(moments['at the end'].labels.length > 4, `${run}: labels drawn at the end`);
        for (const zoom of await page.$$eval('[data-zoom]', (els) => els.map((e) => e.dataset.zoom))) {
          await page.click(`[data-zoom="${zoom}"]`);
          await page.waitForSelector(`[data-zoom="${zoom}"][aria-pressed="true"]`);
          assert.deepEqual(timelineProblems(await timelineLabels(page), [], 8), [], `${run} zoomed: ${zoom}`);
        }
      }
      await page.locator('#timeline').screenshot({ path: join(shots, `timeline-${s.id}-${width}.png`) });
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

test('every page with a timeline, in an embed 720 px tall, shows the whole timeline without scrolling', async () => {
  let checked = 0;
  // One page, every load at its width (`viewAs`).
  const page = await openPage(browser, { width: 720, height: 720 });
  for (const { id } of scenarios()) {
    for (const width of [720, 1000]) {
      await viewAs(page, { width, height: 720 });
      await page.goto(`${server.base}/?sim=${id}&embed=1`);
      await ready(page);
      await page.waitForSelector('[data-figure]');
      if (await page.$('#timeline')) {
        await page.waitForSelector('#timeline canvas[data-labels]');
        const bottom = await page.$eval('#timeline canvas', (c) => c.getBoundingClientRect().bottom);
        assert.ok(bottom <= 720, `${id} at ${width} px: the timeline ends at ${bottom} px`);
        checked += 1;
      }
      assert.deepEqual(page.problems(), [], `${id} at ${width} px`);
    }
  }
  await page.context().close();
  assert.ok(checked > 0, 'some page has a timeline to check');
});
