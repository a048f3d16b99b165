// Issue 44: cascade's figure is headed by a picture of the pool, drawn from the run's own state.
// What the picture says it draws (`data-drawn`) at a paused moment is what `run --at-ms` says the
// model held then: each pool's counts (the facts' shared_now, recs_pool_now), when the shared
// pool filled, the requests in flight. Switching fix keeps the earlier run as a ghost
// (`data-ghost`) on the shared pool. Screenshots at 360, 412 and 720 px, light and dark, go to
// target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, pausedPicture, pictureLabels, timelineProblems, cliRun, screenshot, cliAt } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const cases = [
  ['no timeout (the chapter)', 'sim=cascade&embed=1&preset=no-timeout', 1500],
  ['a 300 ms timeout', 'sim=cascade&embed=1&preset=timeout', 1500],
  ['a separate pool', 'sim=cascade&embed=1&preset=bulkhead', 1500],
  ['no connection limit', 'sim=cascade&embed=1&preset=unbounded-pool', 3000],
];

for (const [what, query, ms] of cases) {
  test(`cascade, ${what}: the picture draws what the model holds at the paused moment (run --at-ms)`, async () => {
    const page = await openPage(browser, { width: 412, height: 900 });
    const { atMs, drawn } = await pausedPicture(page, server.base, query, ms);
    assert.ok(atMs > 500, `played past the pool's filling: ${atMs} ms`);
    assert.equal(drawn.at_ms, atMs, 'the picture is of the moment paused at');
    const run = cliAt(query, atMs);
    for (const key of ['pool_full_at_ms', 'pool_exhausted_ms', 'home_in_flight_now', 'checkout_waiting', 'downstream_open_connections']) {
      assert.equal(drawn[key], run[key], key);
    }
    assert.deepEqual(drawn.shared_now, run.facts.shared_now, 'the shared pool');
    assert.deepEqual(drawn.recs_pool_now, run.facts.recs_pool_now, 'recommendations\' pool');
    const nows = [drawn.shared_now, drawn.recs_pool_now].filter(Boolean);
    assert.equal(drawn.pools.length, nows.length, 'a pool drawn for each pool the run has');
    drawn.pools.forEach((p, i) => {
      const now = nows[i];
      const held = Object.values(p.held).reduce((a, b) => a + b, 0);
      assert.equal(held, now.in_use, `${p.name}: a held slot per connection in use`);
      assert.equal(p.held.recs_hung, now.hung, `${p.name}: the hung calls`);
      assert.equal(p.waiting_home + p.waiting_checkout, now.waiting, `${p.name}: its line`);
      assert.ok(p.line_drawn <= now.waiting && p.slots_drawn <= p.slots_total, `${p.name}: no more drawn than held`);
      assert.equal(p.full, now.limit !== null && now.in_use === now.limit, `${p.name}: framed as full when full`);
    });
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('cascade, no timeout: the pool fills with hung calls and /checkout waits in its line; the picture says when', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, 'sim=cascade&embed=1&preset=no-timeout', 1500);
  const [shared] = drawn.pools;
  assert.equal(shared.held.recs_hung, 20, 'all 20 slots held by calls that never answer');
  assert.ok(shared.waiting_checkout > 0 && shared.waiting_home > shared.waiting_checkout, JSON.stringify(shared));
  const labels = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-labels')).map((l) => l.text);
  assert.ok(labels.includes('Shared pool: 20 of 20 in use'), labels.join(' | '));
  // Seconds as the page writes them: at most two decimals, no trailing zeros ("0.4 s").
  const secs = (ms) => `${(ms / 1000).toFixed(2).replace(/0+$/, '').replace(/\.$/, '')} s`;
  assert.ok(labels.includes(`pool full at ${secs(shared.full_since_ms)}`), labels.join(' | '));
  assert.ok(shared.full_since_ms >= drawn.pool_full_at_ms, 'full since it last filled, at or after it first did');
  assert.ok(labels.some((l) => l.endsWith(`/checkout ${shared.waiting_checkout}`)), labels.join(' | '));
  await page.context().close();
});

test('cascade, a separate pool: two pools drawn, the hung calls in recommendations\' own', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, 'sim=cascade&embed=1&preset=bulkhead', 1500);
  const [shared, recs] = drawn.pools;
  assert.deepEqual([shared.name, recs.name], ['shared', 'recs']);
  assert.equal(recs.held.recs_hung, 20);
  assert.equal(shared.held.recs_hung + shared.waiting_checkout, 0, 'the shared pool keeps room for price');
  const labels = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-labels')).map((l) => l.text);
  assert.ok(labels.some((l) => /^Recommendations' pool: 20 of 20 in use$/.test(l)), labels.join(' | '));
  assert.ok(labels.some((l) => /^pool full at /.test(l)), labels.join(' | '));
  await page.context().close();
});

test('cascade: the picture is the figure\'s headline, and chart=home still picks the chart', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.goto(`${server.base}/?sim=cascade&embed=1`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart [data-picture]').count(), 1, 'the picture heads the figure');
  await page.waitForSelector('.figure-chart [data-picture] canvas[data-drawn]');
  const labels = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-labels')).map((l) => l.text);
  assert.deepEqual(labels, ['Shared pool: 0 of 20 in use', 'no call waits for a connection'], 'before Play');
  await page.goto(`${server.base}/?sim=cascade&embed=1&chart=home`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart #chart-home').count(), 1);
  assert.equal(await page.locator('[data-picture]').count(), 0, 'the picture is a part like the others');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

const clockMs = async (page) => Math.round(Number(await page.getAttribute('.play-controls .clock', 'data-value')) * 1e6) / 1000;
const GHOST_KEYS = ['pool_full_at_ms', 'pool_in_use_max', 'pool_waiting_max', 'checkout_ok', 'checkout_arrived'];

/** Picks fix `id` in the figure's Fix control and returns the ghost the picture then carries. */
async function pickFix(page, id) {
  await page.click(`label:has(> input[name="variant"][value="${id}"])`);
  await page.clock.runFor(300);
  return JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-ghost'));
}

/** The ghost's numbers, as `run cascade --preset <id> --json` gives them. */
const cliGhost = (id) => {
  const run = cliRun(['run', 'cascade', '--preset', id, '--json']);
  return Object.fromEntries(GHOST_KEYS.map((k) => [k, run[k]]));
};
const ghostNumbers = (ghost) => Object.fromEntries(GHOST_KEYS.map((k) => [k, ghost[k]]));

test('cascade: picking Timeout after No timeout keeps No timeout\'s pool and line as a ghost, and the clock', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { atMs } = await pausedPicture(page, server.base, 'sim=cascade&embed=1', 1500);
  const canvas = page.locator('[data-picture] canvas');
  assert.equal(await canvas.getAttribute('data-ghost'), null, 'no ghost before a change');
  // The figure opens on the chapter's run without naming a preset; the Fix control's setting
  // is the No timeout preset's, so the ghost takes its name.
  const ghost = await pickFix(page, 'timeout');
  assert.equal(ghost.label, 'No timeout');
  assert.deepEqual(ghostNumbers(ghost), cliGhost('no-timeout'), 'the ghost is No timeout\'s whole run');
  const drawn = JSON.parse(await canvas.getAttribute('data-drawn'));
  assert.equal(drawn.at_ms, atMs, 'the clock stayed');
  assert.equal(await clockMs(page), atMs);
  const texts = (await pictureLabels(page)).labels.map((l) => l.text);
  const full = `full at ${(ghost.pool_full_at_ms / 1000).toFixed(2).replace(/0+$/, '').replace(/\.$/, '')} s`;
  const said = `dashed: No timeout: ${full}, ${ghost.checkout_ok} of ${ghost.checkout_arrived} checkouts succeeded`;
  assert.ok(texts.includes(said), `${said} in ${texts.join(' | ')}`);
  assert.ok(texts.includes(`dashed: up to ${ghost.pool_waiting_max.toLocaleString('en-US')} waiting`), texts.join(' | '));
  await screenshot(page, 'cascade-picture-ghost-412');
  // Separate pool after Timeout: a ghost whose pool never filled.
  await page.clock.runFor(1500);
  const timeout = await pickFix(page, 'bulkhead');
  assert.equal(timeout.label, '300 ms timeout');
  assert.deepEqual(ghostNumbers(timeout), cliGhost('timeout'));
  const then = (await pictureLabels(page)).labels.map((l) => l.text);
  assert.ok(then.some((t) => t.startsWith('dashed: 300 ms timeout: never full, 99 of 99 checkouts')), then.join(' | '));
  await screenshot(page, 'cascade-picture-ghost-bulkhead-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`cascade's ghost at ${width} px, ${scheme}: its label inside the canvas, none overlapping`, async () => {
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    await pausedPicture(page, server.base, 'sim=cascade&embed=1&preset=timeout&presets=no-timeout,timeout,bulkhead', 1500);
    for (const id of ['no-timeout', 'bulkhead', 'timeout']) {
      await page.clock.runFor(1500);
      await page.click(`[data-preset="${id}"]`);
      await page.clock.runFor(300);
      const drawn = await pictureLabels(page);
      const texts = drawn.labels.map((l) => l.text);
      assert.ok(texts.some((t) => /^dashed: .*checkouts (succeeded|ok)$/.test(t)), `${id}: ${texts.join(' | ')}`);
      assert.deepEqual(timelineProblems(drawn), [], id);
      await screenshot(page, `cascade-picture-ghost-${id}-${width}-${scheme}`);
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

const shown = [
  ['no-timeout', 1500],
  ['bulkhead', 1500],
  ['unbounded-pool', 3000],
  // A pool of three: "pool full at" has no room over its slots and goes to the row's end.
  ['no-timeout&pool_size=3', 1500],
];

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`cascade's picture at ${width} px, ${scheme}: every label inside the canvas, none overlapping`, async () => {
    // One page loads every preset in turn: the same fresh load at this size and scheme.
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    for (const [preset, ms] of shown) {
      await pausedPicture(page, server.base, `sim=cascade&embed=1&preset=${preset}`, ms);
      const { labels, w, h } = await page.$eval('[data-picture] canvas', (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight }));
      const texts = labels.map((l) => l.text).join(' | ');
      assert.ok(labels.some((l) => /^(Shared pool|Shared)[:,]/.test(l.text)), `${preset}: the shared pool is named: ${texts}`);
      assert.ok(labels.some((l) => /wait/.test(l.text)), `${preset}: its line's count: ${texts}`);
      if (preset.startsWith('no-timeout')) assert.ok(labels.some((l) => /^pool full at /.test(l.text)), `when it filled: ${texts}`);
      if (preset === 'bulkhead') assert.ok(labels.some((l) => /^Rec/.test(l.text)), `the second pool is named: ${texts}`);
      for (const l of labels) assert.ok(l.x >= 0 && l.y >= 0 && l.x + l.w <= w + 0.01 && l.y + l.h <= h + 0.01, `${preset}: "${l.text}" is cut`);
      for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
        const [a, b] = [labels[i], labels[j]];
        assert.ok(!(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h), `${preset}: "${a.text}" overlaps "${b.text}"`);
      }
      await screenshot(page, `cascade-picture-${preset.replace(/[&=]/g, '-')}-${width}-${scheme}`);
      assert.deepEqual(page.problems(), [], preset);
    }
    await page.context().close();
  });
}
