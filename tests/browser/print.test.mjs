// Issue 46, item 3: a link opens a figure at a moment (`at=end`, `at=<ms>`), paused there with
// the numbers the command line gives for that moment; printing a figure that never ran prints the
// end of its run, without the play bar and controls, with the live figure's address as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, untilFinished, screenshot, cliAt, cliRun } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const QUERY = 'sim=cascade&preset=no-timeout&embed=1';

/** The clock's moment (ms of the run) and every stat card's value, keyed by metric. */
async function shown(page) {
  const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
  const cards = await page.$$eval('[data-stat]', (els) => els.map((e) => [e.dataset.stat, e.dataset.value]));
  return { atMs: Math.round(seconds * 1e6) / 1000, cards: cards.filter(([, v]) => v !== '') };
}

/** Every card shows the command line's number for the same moment. */
function agreesWithCli({ atMs, cards }, query, what) {
  const run = cliAt(query, atMs);
  const metrics = cards.filter(([key]) => key in run.metrics);
  assert.ok(metrics.length >= 4, `${what}: ${metrics.length} metric cards shown`);
  for (const [key, value] of metrics) {
    assert.ok(Math.abs(Number(value) - run.metrics[key]) <= 0.05, `${what}: ${key} shows ${value}, the CLI ${run.metrics[key]}`);
  }
}

test('at=end opens the figure at the end of its run, paused, with the end\'s numbers', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?${QUERY}&at=end`);
  await ready(page);
  await untilFinished(page);
  await page.waitForSelector('[data-action="play"]');
  const end = await shown(page);
  assert.equal(end.atMs, cliRun(['run', '--url', '?sim=cascade&preset=no-timeout', '--json']).duration_ms);
  agreesWithCli(end, QUERY, 'at=end');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('at=2500 opens the figure 2.5 s into its run, paused, as `run --at-ms 2500` has it', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?${QUERY}&at=2500`);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('.play-controls .clock')?.dataset.value === '2.5');
  await page.waitForSelector('[data-action="play"]');
  const moment = await shown(page);
  assert.equal(moment.atMs, 2500);
  agreesWithCli(moment, QUERY, 'at=2500');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('a bad at= gets a notice and the figure opens at its start', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/?${QUERY}&at=soon`);
  await ready(page);
  const notices = await page.$$eval('[data-notices]', (els) => els.map((e) => e.textContent.trim()));
  assert.ok(notices.some((n) => n.includes("at: 'soon' is neither end nor a time in ms")), notices.join(' | '));
  assert.equal(Number(await page.getAttribute('.play-controls .clock', 'data-value')), 0);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('printing an unplayed figure prints its end, without controls, with its address', async () => {
  for (const width of [412, 720]) {
    const page = await openPage(browser, { width, height: 900 });
    await page.goto(`${server.base}/?${QUERY}`);
    await ready(page);
    assert.equal(Number(await page.getAttribute('.play-controls .clock', 'data-value')), 0);
    await page.emulateMedia({ media: 'print' });
    await page.evaluate(() => dispatchEvent(new Event('beforeprint')));
    await untilFinished(page);
    agreesWithCli(await shown(page), QUERY, `printed at ${width} px`);
    assert.equal(await page.locator('.play-controls').isVisible(), false, 'no play bar on paper');
    assert.equal(await page.locator('aside.panel').isVisible(), false, 'no sliders on paper');
    // The live figure's address, printed after it (the body's ::after) from the body's attribute.
    const link = await page.evaluate(() => document.body.dataset.liveFigure);
    const printed = await page.evaluate(() => getComputedStyle(document.body, '::after').content);
    assert.match(printed, /^"Live figure: "|Live figure: /, `printed as ${printed}`);
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/\?sim=cascade&/);
    assert.ok(link.includes('preset=no-timeout'), link);
    await page.evaluate(() => dispatchEvent(new Event('afterprint')));
    await screenshot(page, `print-cascade-${width}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});
