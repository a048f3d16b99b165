// The kit's timeline on both pages that draw request timelines: the label boxes it drew (the
// canvas's data-labels) never overlap, never cross the canvas edge, and the lane names are
// always there, at 1,280 and 360 px, at the defaults and with presets, mid-run and at the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ready, shots, untilFinished } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The boxes drawn in the timeline's latest frame, and the canvas's size. */
async function drawn(page) {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return page.$eval('#timeline canvas', (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight }));
}

function checkLabels({ labels, w, h }, names, what) {
  const texts = labels.map((l) => l.text);
  for (const name of names) assert.ok(texts.includes(name), `${what}: the lane name ${name} is drawn (${texts.join(' | ')})`);
  for (const l of labels) {
    assert.ok(l.x >= 0 && l.y >= 0 && l.x + l.w <= w + 0.01 && l.y + l.h <= h + 0.01,
      `${what}: "${l.text}" at ${l.x},${l.y} (${l.w}×${l.h}) is cut by the ${w}×${h} canvas`);
  }
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      const [a, b] = [labels[i], labels[j]];
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      assert.ok(!overlap, `${what}: "${a.text}" (${a.x},${a.y} ${a.w}) overlaps "${b.text}" (${b.x},${b.y} ${b.w})`);
    }
  }
}

const PAGES = [
  { sim: 'deadline-chain', names: ['User', 'A', 'B', 'C'],
    runs: ['', '&preset=propagated', '&preset=wrong-order', '&preset=every-hop', '&a_to_b_timeout_ms=0&b_to_c_timeout_ms=0'] },
  { sim: 'double-click', names: ['Page', 'Helper', 'Server', 'Card'],
    runs: ['', '&preset=key', '&preset=part3-table', '&preset=same-ms-race', '&preset=amount-changed'] },
  { sim: 'which-timeout', names: ['Call', 'Timers', 'Server'],
    runs: ['', '&preset=covered', '&preset=http-timeout-event', '&preset=body-timeout-trickle', '&preset=pool-wait'] },
  // Its lanes are the events something happened to, named by event ("Event 12"): there is no
  // fixed list, but by the end of every run some lane must be drawn with such a name.
  { sim: 'at-least-once', names: [], laneAtEnd: /^Event [\d,]+$/,
    runs: ['', '&preset=ack-first', '&preset=txn-dedupe', '&preset=long-jobs', '&preset=short-window'] },
];

for (const { sim, names, runs, laneAtEnd } of PAGES) {
  for (const width of [1280, 360]) {
    test(`${sim} at ${width} px: no two labels overlap, none is cut, the lane names are drawn`, async () => {
      const page = await openPage(browser, { width, height: 900 });
      for (const run of runs) {
        await page.goto(`${server.base}/?sim=${sim}${run}`);
        await ready(page);
        await page.waitForSelector('#timeline canvas[data-labels]');
        checkLabels(await drawn(page), names, `${sim}${run} before play`);
        for (let i = 0; i < 6; i++) await page.click('[data-action="step"]');
        checkLabels(await drawn(page), names, `${sim}${run} after 6 steps`);
        await page.click('[data-action="skip"]');
        await untilFinished(page);
        const end = await drawn(page);
        checkLabels(end, names, `${sim}${run} at the end`);
        assert.ok(end.labels.length > names.length + 4, `${sim}${run}: labels drawn at the end`);
        if (laneAtEnd) {
          assert.ok(end.labels.some((l) => laneAtEnd.test(l.text)), `${sim}${run}: a lane named like ${laneAtEnd} at the end`);
        }
        if (sim === 'deadline-chain') {
          await page.click('[data-zoom="end"]');
          checkLabels(await drawn(page), names, `${sim}${run} zoomed`);
        }
      }
      await page.locator('#timeline').screenshot({ path: join(shots, `timeline-${sim}-${width}.png`) });
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

test('both pages in an embed 720 px tall show the whole timeline without scrolling', async () => {
  for (const sim of ['deadline-chain', 'double-click']) {
    for (const width of [720, 1000]) {
      const page = await openPage(browser, { width, height: 720 });
      await page.goto(`${server.base}/?sim=${sim}&embed=1`);
      await ready(page);
      await page.waitForSelector('#timeline canvas[data-labels]');
      const bottom = await page.$eval('#timeline canvas', (c) => c.getBoundingClientRect().bottom);
      assert.ok(bottom <= 720, `${sim} at ${width} px: the timeline ends at ${bottom} px`);
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});

test('no sideways scroll at 320 and 360 px, page and embed, before and after a run, with every preset', async () => {
  const { scenarios } = await import('./harness.mjs');
  for (const sim of ['deadline-chain', 'double-click']) {
    const presets = ['', ...scenarios().find((s) => s.id === sim).presets.map((p) => `&preset=${p.id}`)];
    for (const width of [320, 360]) {
      const page = await openPage(browser, { width, height: 800 });
      for (const embed of ['', '&embed=1']) {
        for (const preset of presets) {
          await page.goto(`${server.base}/?sim=${sim}${preset}${embed}`);
          await ready(page);
          await page.waitForSelector('#timeline canvas[data-labels]');
          const before = await page.evaluate(() => document.documentElement.scrollWidth);
          await page.click('[data-action="skip"]');
          await untilFinished(page);
          const after = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(before <= width && after <= width, `${sim}${preset}${embed} at ${width} px: ${before} / ${after} px wide`);
        }
      }
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});
