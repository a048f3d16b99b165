// Issue 44: retry-storm's figure is headed by a picture of the clients and the provider, drawn
// from the run's own state. What the picture says it draws (`data-drawn`) at a paused moment is
// what `run --at-ms` says the model held then: the tick in progress, the clients by what they
// do, the calls in service, the busiest tick since recovery, the breaker. Switching preset
// keeps the earlier run as a ghost (`data-ghost`) on an axis that does not move. Screenshots at
// 360, 412 and 720 px, light and dark, go to target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, pausedPicture, pictureLabels, timelineProblems, cliRun, screenshot, setSlider, playFor, cliAt } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const FIGURE = 'sim=retry-storm&embed=1&presets=fixed,exponential,jitter&controls=clients,budget_pct';

const cases = [
  ['Fixed 1 s, as the provider comes back', 'preset=fixed', 6050],
  ['Fixed 1 s, during the outage', 'preset=fixed', 4050],
  ['Exp + jitter, after recovery', 'preset=jitter', 7050],
  ['Break 5: three layers and a breaker', 'preset=ch2-break-5', 3050],
  ['Break 2: pending orders', 'preset=ch2-break-2', 2550],
];

for (const [what, preset, ms] of cases) {
  test(`retry-storm, ${what}: the picture draws what the model holds at the paused moment (run --at-ms)`, async () => {
    const page = await openPage(browser, { width: 412, height: 900 });
    const query = `${FIGURE}&${preset}`;
    const { atMs, drawn } = await pausedPicture(page, server.base, query, ms);
    assert.ok(atMs > ms - 200, `played to ${atMs} ms`);
    assert.equal(drawn.at_ms, atMs, 'the picture is of the moment paused at');
    const run = cliAt(query, atMs);
    for (const key of ['peak_after_recovery', 'in_flight_end', 'capacity_per_tick']) assert.equal(drawn[key], run[key], key);
    assert.deepEqual(drawn.tick_now, run.facts.tick_now, 'the tick in progress');
    assert.deepEqual(drawn.clients_now, run.facts.clients_now, 'the clients');
    assert.equal(drawn.clients_drawn, run.params.clients, 'a dot per client');
    // The facts name a breaker's state as a word, or an object keyed by it ({"open":{"until":…}}).
    const now = run.facts.breaker?.now;
    assert.equal(drawn.breaker, now === undefined ? null : typeof now === 'string' ? now : Object.keys(now)[0], 'the breaker');
    const t = drawn.tick_now;
    assert.ok(drawn.flights <= t.served + t.rejected + t.failed + t.short_circuited + t.resets, 'no more lines than attempts');
    assert.equal(drawn.fan !== null, run.params.layers > 1, 'a fan of attempts only when layers retry');
    if (drawn.fan) {
      assert.equal(drawn.fan.bound, run.params.max_attempts * run.params.attempts_per_layer ** (run.params.layers - 1));
      assert.ok(drawn.fan.attempts <= run.max_attempts_per_user_action && drawn.fan.calls <= run.max_calls_per_user_action, JSON.stringify(drawn.fan));
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('retry-storm, Fixed 1 s: every client that failed together tries in the first tick after recovery, most turned away', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, `${FIGURE}&preset=fixed`, 6080);
  const t = drawn.tick_now;
  assert.equal(t.served, 8, 'the capacity is taken');
  assert.ok(t.rejected >= 25 && drawn.flights >= 33, JSON.stringify(drawn));
  const texts = (await pictureLabels(page)).labels.map((l) => l.text);
  assert.ok(texts.includes(`this tick: ${t.served + t.rejected} calls`), texts.join(' | '));
  assert.ok(texts.includes(`busiest tick since back: ${drawn.peak_after_recovery}`), texts.join(' | '));
  assert.ok(texts.includes('capacity 8'), texts.join(' | '));
  await page.context().close();
});

test('retry-storm: switching Fixed 1 s to Exp + jitter keeps Fixed as a ghost on the same axis, and the clock', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { atMs, drawn: fixed } = await pausedPicture(page, server.base, `${FIGURE}&preset=fixed`, 12000);
  const canvas = page.locator('[data-picture] canvas');
  assert.equal(await canvas.getAttribute('data-ghost'), null, 'no ghost before a change');
  await page.click('[data-preset="jitter"]');
  await page.clock.runFor(300);
  const ghost = JSON.parse(await canvas.getAttribute('data-ghost'));
  const jitter = JSON.parse(await canvas.getAttribute('data-drawn'));
  assert.equal(ghost.label, 'Fixed 1 s');
  assert.equal(ghost.peak_after_recovery, cliRun(['run', 'retry-storm', '--preset', 'fixed', '--json']).peak_after_recovery, 'the ghost is Fixed\'s whole run');
  assert.equal(jitter.at_ms, atMs, 'the clock stayed');
  assert.deepEqual([jitter.y_top, jitter.x_end_ms], [fixed.y_top, fixed.x_end_ms], 'the axis did not move');
  assert.ok(jitter.peak_after_recovery <= 8, `jitter's peak ${jitter.peak_after_recovery}`);
  const texts = (await pictureLabels(page)).labels.map((l) => l.text);
  assert.ok(texts.includes(`dashed: Fixed 1 s, busiest ${ghost.peak_after_recovery}`), texts.join(' | '));
  // A drag of the clients slider is one change: the ghost stays the run before it.
  await page.click('[data-preset="exponential"]');
  await page.clock.runFor(1500);
  for (const v of [41, 42, 43]) await setSlider(page, 'clients', v);
  await page.clock.runFor(300);
  assert.equal(JSON.parse(await canvas.getAttribute('data-ghost')).label, 'Exponential', 'the run before the drag');
  await screenshot(page, 'retry-storm-picture-ghost-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm, Break 5: one action\'s 3 × 3 × 3 tree, cut by the breaker; without it all 27 reach the dead provider', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const query = 'sim=retry-storm&embed=1&preset=ch2-break-5&presets=ch2-break-5&controls=breaker';
  const { drawn } = await pausedPicture(page, server.base, query, 3050);
  assert.equal(drawn.breaker, 'open');
  assert.equal(drawn.fan.bound, 27);
  assert.ok(drawn.fan.short_circuited > drawn.fan.calls, `the breaker stopped most of them: ${JSON.stringify(drawn.fan)}`);
  let texts = (await pictureLabels(page)).labels.map((l) => l.text);
  assert.ok(texts.includes('one action\'s attempts: up to 3 × 3 × 3 = 27'), texts.join(' | '));
  assert.ok(texts.some((l) => new RegExp(`^made ${drawn.fan.attempts}, ${drawn.fan.calls} reached the provider, ${drawn.fan.short_circuited} stopped at the breaker$`).test(l)), texts.join(' | '));
  await page.click('input[name="breaker"]');
  await playFor(page, 2900);
  await page.clock.runFor(300);
  const canvas = page.locator('[data-picture] canvas');
  const off = JSON.parse(await canvas.getAttribute('data-drawn'));
  const ghost = JSON.parse(await canvas.getAttribute('data-ghost'));
  assert.equal(off.fan.calls, 27, `every leaf reached the provider: ${JSON.stringify(off.fan)}`);
  assert.equal(ghost.max_calls_per_user_action, cliRun(['run', 'retry-storm', '--preset', 'ch2-break-5', '--json']).max_calls_per_user_action, 'the ghost is the run with the breaker');
  texts = (await pictureLabels(page)).labels.map((l) => l.text);
  assert.ok(texts.some((l) => l.startsWith('before') && l.endsWith(` ${ghost.max_calls_per_user_action === 1 ? 'call' : 'calls'} per action`)), texts.join(' | '));
  await screenshot(page, 'retry-storm-picture-break-5-ghost-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('retry-storm: the picture is the figure\'s headline, and chart=attempts still picks the chart', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.goto(`${server.base}/?${FIGURE}`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart [data-picture]').count(), 1, 'the picture heads the figure');
  await page.goto(`${server.base}/?${FIGURE}&chart=attempts`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart #chart-attempts').count(), 1);
  assert.equal(await page.locator('[data-picture]').count(), 0, 'the picture is a part like the others');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

const shown = [['fixed', 6080], ['fixed', 4050], ['jitter', 9000], ['ch2-break-5', 3050], ['three-layers', 6080], ['fixed&clients=200&capacity=100', 6080]];

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`retry-storm's picture at ${width} px, ${scheme}: every label inside the canvas, none overlapping`, async () => {
    // One page loads every preset in turn: the same fresh load at this size and scheme.
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    for (const [preset, ms] of shown) {
      await pausedPicture(page, server.base, `${FIGURE}&preset=${preset}`, ms);
      const drawn = await pictureLabels(page);
      const texts = drawn.labels.map((l) => l.text).join(' | ');
      // With layers that retry, the fan of one action takes the strip's place.
      const layered = ['ch2-break-5', 'three-layers'].includes(preset);
      const named = layered ? 'one action\'s attempts: up to 3 × 3 × 3 = 27' : `capacity ${preset.includes('capacity=100') ? 100 : 8}`;
      assert.deepEqual(timelineProblems(drawn, [named]), [], preset);
      assert.ok(/^this tick: /.test(texts.split(' | ').find((l) => l.startsWith('this tick')) ?? ''), `${preset}: the tick's count: ${texts}`);
      await screenshot(page, `retry-storm-picture-${preset.replace(/[&=]/g, '-')}-${ms}-${width}-${scheme}`);
      assert.deepEqual(page.problems(), [], preset);
    }
    await page.context().close();
  });
}
