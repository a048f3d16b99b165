// No input makes a page panic, hang or show NaN: every slider of every simulation at its
// minimum, then at its maximum, then every toggle flipped, and the run skipped to the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, scenarioIds, untilFinished } from './harness.mjs';

const SCENARIOS = scenarioIds();
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

for (const id of SCENARIOS) {
  test(`${id}: every slider at its minimum and maximum, toggles flipped`, async () => {
    const page = await openPage(browser, { width: 1024 });
    await page.goto(`${server.base}/?sim=${id}&duration_ms=5000`);
    await ready(page);
    for (const end of ['min', 'max']) {
      await page.$$eval('input[type="range"]', (els, end) => {
        for (const el of els) {
          el.value = el[end];
          el.dispatchEvent(new Event('input', { bubbles: true }));
        }
      }, end);
      await page.$$eval('.controls input[type="checkbox"]', (els) => els.forEach((el) => el.click()));
      await page.click('[data-action="skip"]');
      // Skipping runs in chunks; wait for the end of the (short) run.
      await untilFinished(page);
      const text = await page.textContent('main');
      // A number shown as NaN or Infinity; node:http's "maxSockets Infinity", quoted from the chapter, is a name.
      const broken = /\bNaN\b|undefined|(?<!maxSockets )Infinity/;
      assert.ok(!broken.test(text), `${id} at ${end}: ${text.match(new RegExp(`.{0,60}(${broken.source}).{0,60}`))?.[0]}`);
      const values = await page.$$eval('[data-stat]', (els) => els.map((e) => e.dataset.value));
      // Every card's value is empty, a finite number, or a word (an error name): never NaN or ±Infinity.
      const bad = values.filter((v) => v !== '' && !Number.isFinite(Number(v)) && (/^[+-]?(NaN|Infinity)$/.test(v) || /^[\d.+-]/.test(v)));
      assert.deepEqual(bad, [], `${id} at ${end}: card values ${values}`);
    }
    await screenshot(page, `extremes-${id}`);
    assert.equal(await page.$('[data-error-banner]'), null);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}
