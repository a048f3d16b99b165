// No sideways scroll on a phone: every page, at its defaults and every preset, at 320 and
// 360 px, in the full layout and in the embed, before and after its run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarios, untilFinished } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** How far the page reaches past the right edge of the screen, and what sticks out most. */
const overflow = (page) => page.evaluate(() => {
  const over = document.documentElement.scrollWidth - innerWidth;
  let widest = '';
  if (over > 0) {
    let right = innerWidth;
    for (const el of document.querySelectorAll('main *')) {
      const r = el.getBoundingClientRect().right;
      if (r > right) { right = r; widest = `${el.tagName.toLowerCase()}.${el.className} (${Math.round(r)} px)`; }
    }
  }
  return { over, widest };
});

for (const s of scenarios()) {
  for (const embed of [false, true]) {
    test(`${s.id}${embed ? ' embed' : ''}: no sideways scroll at 320 and 360 px, any preset, before and after the run`, async () => {
      for (const width of [320, 360]) {
        const page = await openPage(browser, { width, height: 740 });
        for (const preset of [null, ...s.presets.map((p) => p.id)]) {
          const query = `sim=${s.id}${preset ? `&preset=${preset}` : ''}${embed ? '&embed=1' : ''}`;
          await page.goto(`${server.base}/?${query}`);
          await ready(page);
          let o = await overflow(page);
          assert.ok(o.over <= 0, `${query} at ${width} px, before the run: ${o.over} px too wide; ${o.widest}`);
          await page.click('[data-action="skip"]');
          await untilFinished(page);
          o = await overflow(page);
          assert.ok(o.over <= 0, `${query} at ${width} px, after the run: ${o.over} px too wide; ${o.widest}`);
        }
        assert.deepEqual(page.problems(), []);
        await page.context().close();
      }
    });
  }
}
