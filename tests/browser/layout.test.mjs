// No sideways scroll on a phone: every page, at its defaults and every preset, at 320 and
// 360 px, in the full layout and in the embed, before and after its run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarios, untilFinished, viewAs } from './harness.mjs';

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
      // One page, every load at its width (`viewAs`).
      const page = await openPage(browser, { width: 320, height: 740 });
      for (const width of [320, 360]) {
        await viewAs(page, { width, height: 740 });
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
        assert.deepEqual(page.problems(), [], `at ${width} px`);
      }
      await page.context().close();
    });
  }
}

/**
 * Segmented controls that wrap: every row of segments spans its box from edge to edge, so no
 * divider (the 1 px gap between segments) is left dangling at either end of a row.
 */
const danglingDividers = (page) => page.evaluate(() => {
  const found = [];
  for (const box of document.querySelectorAll('.segments')) {
    const b = box.getBoundingClientRect();
    if (b.width === 0) continue;
    const rows = new Map();
    for (const label of box.querySelectorAll('label')) {
      const r = label.getBoundingClientRect();
      const key = Math.round(r.top);
      const row = rows.get(key) ?? { left: Infinity, right: -Infinity };
      rows.set(key, { left: Math.min(row.left, r.left), right: Math.max(row.right, r.right) });
    }
    for (const [top, row] of rows) {
      // The box's border is 1 px; the segments fill what is inside it.
      if (row.left - b.left > 1.5 || b.right - row.right > 1.5) {
        found.push(`${box.closest('fieldset')?.querySelector('legend')?.textContent}: row at ${top} spans ${Math.round(row.left)}–${Math.round(row.right)} of ${Math.round(b.left)}–${Math.round(b.right)}`);
      }
    }
  }
  return found;
});

for (const width of [320, 360, 1280]) {
  test(`segmented controls fill every row at ${width} px (no stray divider)`, async () => {
    const page = await openPage(browser, { width, height: 800 });
    let wrapped = 0;
    for (const s of scenarios()) {
      await page.goto(`${server.base}/?sim=${s.id}`);
      await ready(page);
      assert.deepEqual(await danglingDividers(page), [], `${s.id} at ${width} px`);
      wrapped += await page.$$eval('.segments', (boxes) => boxes.filter((box) => {
        const tops = new Set([...box.querySelectorAll('label')].map((l) => Math.round(l.getBoundingClientRect().top)));
        return tops.size > 1;
      }).length);
    }
    if (width === 320) assert.ok(wrapped > 0, 'at 320 px some control wraps, so the check has something to check');
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}
