// Pictures that do not collide: every label a chart draws (axis ticks, markers, reference
// lines, shaded ranges) is published on its canvas as `data-labels` boxes. On every page, at
// its defaults and every preset, at 1,280 and 360 px, after the run: no two boxes overlap and
// none is cut off by the canvas.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarios, untilFinished } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

for (const width of [1280, 360]) {
  for (const s of scenarios()) {
    test(`${s.id} at ${width} px: chart labels neither overlap nor get cut off`, async () => {
      const page = await openPage(browser, { width });
      for (const preset of [null, ...s.presets.map((p) => p.id)]) {
        await page.goto(`${server.base}/?sim=${s.id}${preset ? `&preset=${preset}` : ''}`);
        await ready(page);
        await page.click('[data-action="skip"]');
        await untilFinished(page);
        // The charts redraw on the next frame after the last chunk.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const canvases = await page.$$eval('canvas[data-labels]', (els) => els.map((c) => ({
          id: c.closest('figure')?.id || c.closest('figure')?.querySelector('figcaption')?.textContent,
          w: c.clientWidth, h: c.clientHeight, labels: JSON.parse(c.dataset.labels),
        })));
        assert.ok(canvases.length > 0, `${s.id} ${preset}: no chart publishes its labels`);
        for (const c of canvases) {
          const where = `${s.id} ${preset ?? '(defaults)'} ${width}px ${c.id}`;
          for (const l of c.labels) {
            assert.ok(l.x >= 0 && l.y >= 0 && l.x + l.w <= c.w + 0.5 && l.y + l.h <= c.h + 0.5, `${where}: "${l.text}" is cut off`);
          }
          for (let i = 0; i < c.labels.length; i++) {
            for (let j = i + 1; j < c.labels.length; j++) {
              const [a, b] = [c.labels[i], c.labels[j]];
              assert.ok(!overlap(a, b), `${where}: "${a.text}" overlaps "${b.text}"`);
            }
          }
        }
      }
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

// Two lines' labels on one row must not read as one: in Chapter 1's Break 1 the pool fills a
// few pixels after recommendations slows down, and on a phone the two labels once touched
// across the line ("pool fullrecommendations stops", as the label then read).
for (const width of [412, 360]) {
  test(`cascade's Break 1 embed at ${width} px: the labels of two close markers stand apart`, async () => {
    const page = await openPage(browser, { width });
    // The chart with the markers; the figure's own headline is the picture of the pool.
    await page.goto(`${server.base}/?sim=cascade&preset=ch1-break-1&embed=1&chart=home&controls=variant,recs_timeout_ms,pool_size`);
    await ready(page);
    await page.click('[data-action="skip"]');
    await untilFinished(page);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const labels = JSON.parse(await page.getAttribute('[data-part="home"] canvas[data-labels]', 'data-labels'));
    const named = (text) => labels.find((l) => l.text === text);
    const [slows, full] = [named('recommendations slows'), named('pool full')];
    assert.ok(slows && full, `both markers are labelled: ${labels.map((l) => l.text).join(' | ')}`);
    const gap = Math.max(full.x - (slows.x + slows.w), slows.x - (full.x + full.w));
    assert.ok(slows.y !== full.y || gap >= 8, `on one row, ${gap.toFixed(1)} px apart`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}
