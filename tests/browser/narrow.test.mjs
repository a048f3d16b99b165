// A figure squeezed to a sliver (a frame being resized, a print preview, a side panel) redraws
// its picture and its timeline without a panic: a label wider than its canvas once made a
// `clamp` with crossed bounds trap the module. Every picture and timeline, at 150 px wide and back
// (a canvas draws at least 100 px wide, so narrower tells nothing more).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, playFor, scenarioIds } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The canvas's drawing width (a canvas sets it when it draws). */
const drawnWidth = (page, selector) => page.$eval(selector, (c) => c.width);

for (const id of scenarioIds()) {
  test(`${id}: its figure squeezed to 150 px and back redraws without an error`, async () => {
    const page = await openPage(browser, { width: 720, height: 900 });
    await page.clock.install();
    await page.goto(`${server.base}/?sim=${id}&embed=1`);
    await ready(page);
    await playFor(page, 3000);
    await page.clock.runFor(300);
    const canvas = (await page.$('[data-picture] canvas')) ? '[data-picture] canvas' : '.figure-chart canvas';
    for (const width of [150, 720]) {
      // The page's frames and its 250 ms redraw of a canvas out of view run on its own clock:
      // move it on until the canvas has redrawn at its new width.
      const before = await drawnWidth(page, canvas);
      await page.setViewportSize({ width, height: 900 });
      let drawn = before;
      for (let step = 0; step < 50 && drawn === before; step++) {
        await page.clock.runFor(100);
        drawn = await drawnWidth(page, canvas);
      }
      assert.notEqual(drawn, before, `${width} px: the canvas redrew at its new width`);
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}
