// The swimlane figures, deadline-chain and double-click (issue 44, item 1): at 360 and 412 px,
// for every preset, at every step of the run and at its end, no two labels overlap or sit
// closer than 8 px on one line (they would read as one phrase), and none leaves the canvas. In
// an embed that compares presets, switching between them keeps the time axis. Screenshots at
// 360, 412 and 720 px, light and dark, go to target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ready, shots, scenarios, skipToEnd, timelineAfterSteps, timelineLabels, timelineProblems, viewAs } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const LANES = { 'deadline-chain': ['User', 'A', 'B', 'C'], 'double-click': ['Page', 'Helper', 'Server', 'Card'] };
/** Steps walked before skipping to the end: past every event of the chapter's runs. */
const STEPS = 30;

for (const id of Object.keys(LANES)) {
  for (const width of [360, 412]) {
    test(`${id} at ${width} px: every preset, every step, labels apart and inside the canvas`, async () => {
      const page = await openPage(browser, { width, height: 900 });
      const presets = scenarios().find((s) => s.id === id).presets.map((p) => p.id);
      for (const preset of presets) {
        await page.goto(`${server.base}/?sim=${id}&preset=${preset}`);
        await ready(page);
        await page.waitForSelector('#timeline canvas[data-labels]');
        const check = async (moment) => assert.deepEqual(timelineProblems(await timelineLabels(page), LANES[id], 8), [], `${preset}, ${moment}`);
        await check('before Play');
        for (const [i, drawn] of (await timelineAfterSteps(page, STEPS)).entries()) {
          assert.deepEqual(timelineProblems(drawn, LANES[id], 8), [], `${preset}, step ${i + 1}`);
        }
        await skipToEnd(page);
        await check('at the end');
      }
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}

/** The time axis's labels: the lowest line of labels ("0 s" … "4 s"). */
async function axis(page) {
  const { labels } = await timelineLabels(page);
  const bottom = Math.max(...labels.map((l) => l.y));
  return labels.filter((l) => l.y === bottom).map((l) => `${l.text}@${l.x}`);
}

const compared = [
  ['deadline-chain', ['fixed', 'propagated', 'ch1-break-3-follow-up']],
  ['double-click', ['double-click', 'disable', 'key']],
];

for (const [id, presets] of compared) {
  test(`${id}: switching ${presets.join(', ')} in an embed keeps one time axis`, async () => {
    // One page, every load at its size and scheme (`viewAs`).
    const page = await openPage(browser, { width: 360, height: 900 });
    for (const [width, scheme] of [[360, 'dark'], [412, 'light'], [720, 'light'], [720, 'dark']]) {
      await viewAs(page, { width, height: 900, colorScheme: scheme });
      await page.goto(`${server.base}/?sim=${id}&embed=1&presets=${presets.join(',')}&preset=${presets[0]}`);
      await ready(page);
      await page.waitForSelector('#timeline canvas[data-labels]');
      let first;
      for (const preset of presets) {
        await page.click(`[data-preset="${preset}"]`);
        await skipToEnd(page);
        const ticks = await axis(page);
        first ??= ticks;
        assert.deepEqual(ticks, first, `${preset} at ${width} px: the axis of ${presets[0]}`);
        assert.deepEqual(timelineProblems(await timelineLabels(page), LANES[id], 8), [], `${preset} at ${width} px`);
        await page.locator('#timeline').screenshot({ path: join(shots, `swimlanes-${id}-${preset}-${width}-${scheme}.png`) });
      }
      assert.deepEqual(page.problems(), [], `at ${width} px, ${scheme}`);
    }
    await page.context().close();
  });
}
