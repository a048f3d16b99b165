// Keyboard and screen-reader use: axe-core audits every page (light and dark) for serious and
// critical problems (names, labels, roles, contrast), and the controls work from the keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, openPage, ready, stat, scenarioIds, untilFinished, playFor } from './harness.mjs';

const axePath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', 'axe-core', 'axe.min.js');
const PAGES = ['', ...scenarioIds().map((id) => `?sim=${id}`)];
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

for (const colorScheme of ['light', 'dark']) {
  for (const path of PAGES) {
    test(`axe finds no serious problem: ${path || 'home'} (${colorScheme})`, async () => {
      const page = await openPage(browser, { colorScheme });
      await page.goto(`${server.base}/${path}`);
      await ready(page);
      if (path) await page.click('[data-action="skip"]');
      await page.addScriptTag({ path: axePath });
      const violations = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.help} (${v.nodes.length}×, e.g. ${v.nodes[0].html.slice(0, 120)})`);
      });
      assert.deepEqual(violations, []);
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

test('the slow-server page works from the keyboard alone', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=slow-server`);
  await ready(page);
  // A slider moves with the arrow keys and the run follows.
  await page.focus('input[type="range"][name="rate"]');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await page.inputValue('input[type="range"][name="rate"]'), '160');
  // A segmented choice moves with the arrow keys.
  await page.focus('input[name="policy"][value="round-robin"]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.isChecked('input[name="policy"][value="random"]'), true);
  // Buttons answer Enter and Space.
  await page.focus('[data-action="skip"]');
  await page.keyboard.press('Enter');
  await untilFinished(page);
  assert.ok((await stat(page, 'time_s')) >= 20);
  await page.focus('[data-action="reset"]');
  await page.keyboard.press('Space');
  assert.equal(await stat(page, 'time_s'), 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('play and pause are one button that keeps the keyboard focus', async () => {
  const page = await openPage(browser);
  // A long run, so it is still playing when the second key press comes.
  await page.goto(`${server.base}/?sim=slow-server&duration_ms=3600000`);
  await ready(page);
  await page.focus('[data-action="play"]');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-pressed') === 'true');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.action), 'pause', 'the same button now pauses');
  await page.waitForFunction(() => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > 0);
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-pressed') === 'false');
  const paused = await stat(page, 'time_s');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.action), 'play', 'focus stayed on the button');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(await stat(page, 'time_s'), paused, 'paused');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

// Tab order follows reading order: the prediction (where a page asks for one) before Play, and
// the play bar before the side panel's details. Real Tab presses from the top of the page.
for (const id of scenarioIds()) {
  test(`${id}: Tab reaches the prediction, then Play, then the parameter panel`, async () => {
    const page = await openPage(browser);
    await page.goto(`${server.base}/?sim=${id}`);
    await ready(page);
    const order = [];
    for (let i = 0; i < 400 && !order.includes('panel'); i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => {
        const el = document.activeElement;
        if (el.closest('aside.panel')) return 'panel';
        if (el.matches('[data-action="play"], [data-action="pause"]')) return 'play';
        if (el.matches('input[name="prediction"]')) return 'prediction';
        return 'other';
      }));
    }
    const play = order.indexOf('play');
    assert.ok(play >= 0 && order.includes('panel'), `${id}: ${order.join(' ')}`);
    assert.ok(play < order.indexOf('panel'), `${id}: Play comes before the panel`);
    if (await page.$('input[name="prediction"]')) {
      const guess = order.indexOf('prediction');
      assert.ok(guess >= 0 && guess < play, `${id}: the prediction comes before Play (${order.join(' ')})`);
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

// A chart's summary is what a screen reader hears (its canvas's label and a polite live region):
// while the run plays it changes at most once a second, not every frame, and on pause it is the
// paused moment's at once.
test('chart summaries change at most once a second while playing, and at once on pause', async () => {
  const page = await openPage(browser);
  await page.clock.install();
  await page.goto(`${server.base}/?sim=slow-server&speed=4`);
  await ready(page);
  await page.evaluate(() => {
    window.labelChanges = 0;
    const canvas = document.querySelector('#chart-queues canvas');
    new MutationObserver((ms) => { window.labelChanges += ms.length; }).observe(canvas, { attributes: true, attributeFilter: ['aria-label'] });
  });
  // Two seconds of the page's own clock (Playwright's, moved by the test): 8 s of the run at 4x.
  const playMs = 2000;
  await playFor(page, playMs);
  const changes = await page.evaluate(() => window.labelChanges);
  assert.ok(changes > 0, 'the summary changed while playing');
  assert.ok(changes <= Math.ceil(playMs / 1000) + 1, `${changes} changes in ${playMs} ms of play (about 125 frames)`);
  const clock = await stat(page, 'time_s');
  const label = await page.getAttribute('#chart-queues canvas', 'aria-label');
  const said = Number(label.match(/at ([\d.,]+) s/)[1].replace(/,/g, ''));
  assert.ok(Math.abs(said - clock) < 0.06, `paused at ${clock} s, the label says ${said} s`);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
