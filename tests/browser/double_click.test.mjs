import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ready, screenshot, shots, stat } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const text = (page, sel) => page.textContent(sel);
const events = async (page) => Number(await page.getAttribute('[data-last-event]', 'data-events'));

async function chooseFix(page, fix) {
  await page.click(`.dc-fix label[data-fix="${fix}"]`);
  assert.equal(await page.isChecked(`input[name="fix-choice"][value="${fix}"]`), true);
  // The panel's own control follows the prominent one.
  assert.equal(await page.isChecked(`input[name="fix"][value="${fix}"]`), true);
}

test('double-click: each fix shows the chapter\'s 3, 2 and 1 charges', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=double-click`);
  await ready(page);
  for (const [fix, charges, told] of [['none', 3, 'failed'], ['disable', 2, 'failed'], ['key', 1, 'paid']]) {
    await chooseFix(page, fix);
    assert.equal(await stat(page, 'charges'), 0, `${fix}: a new choice starts a new run`);
    await page.click('[data-action="skip"]');
    assert.equal(await stat(page, 'charges'), charges, `fix=${fix}`);
    assert.equal(await page.getAttribute('[data-stat="client_outcome"]', 'data-value'), told, `fix=${fix}`);
    const verdict = await text(page, '[data-verdict]');
    assert.match(verdict, charges === 1 ? /charged once/ : new RegExp(`charged ${charges === 2 ? 'twice' : '3 times'}`));
    await page.waitForFunction((f) => location.search.includes(f === 'none' ? 'sim=double-click' : `fix=${f}`), fix);
  }
  // With the key, the table tells the whole story: 409 while the first run works, then the replay.
  const table = await text(page, '[data-events-table]');
  assert.match(table, /answers 409/);
  assert.match(table, /replays the stored answer, 200 with ch_1/);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: the Part 3 table preset shows 3 charges without a key and 1 with it', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=double-click`);
  await ready(page);
  await page.click('[data-preset="part3-table"]');
  await page.click('[data-action="skip"]');
  assert.equal(await stat(page, 'charges'), 3);
  assert.equal(await stat(page, 'timeouts_seen'), 3);
  assert.equal(await stat(page, 'server_requests'), 3);
  assert.equal(await page.getAttribute('[data-stat="client_outcome"]', 'data-value'), 'failed');
  assert.match(await text(page, '[data-verdict]'), /told the payment failed; the card was charged 3 times/);
  await chooseFix(page, 'key');
  await page.click('[data-action="skip"]');
  assert.equal(await stat(page, 'charges'), 1);
  assert.equal(await stat(page, 'timeouts_seen'), 1);
  assert.equal(await stat(page, 'conflicts_409'), 1);
  assert.equal(await stat(page, 'replays'), 1);
  assert.equal(await stat(page, 'server_requests'), 3);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: step advances one event at a time, and says what happened', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=double-click`);
  await ready(page);
  assert.equal(await events(page), 0);
  assert.equal(await page.$$eval('[data-events-table] tbody tr', (r) => r.length), 0);
  await page.click('[data-action="step"]');
  assert.equal(await events(page), 1);
  // One simulator event can show as several rows; the status numbers them as the list does.
  assert.match(await text(page, '[data-last-event]'), /^Events 1–2, at 0 ms: The buyer clicks Pay\. Click 1's helper sends attempt 1/);
  assert.equal(await stat(page, 'client_attempts'), 1);
  assert.equal(await stat(page, 'server_requests'), 0);
  await page.click('[data-action="step"]');
  assert.equal(await events(page), 2);
  assert.equal(await stat(page, 'time_s'), 0.02);
  assert.equal(await stat(page, 'server_requests'), 1);
  assert.match(await text(page, '[data-last-event]'), /at 20 ms: The server receives click 1's attempt 1/);
  // The newest rows are marked.
  assert.ok(await page.$$eval('[data-events-table] tr.latest', (r) => r.length) >= 1);
  await screenshot(page, 'double-click-step-desktop');
  // Step until the first charge commits: every step is one more event.
  for (let n = 3; (await stat(page, 'charges')) === 0; n++) {
    await page.click('[data-action="step"]');
    assert.equal(await events(page), n);
    assert.ok(n < 30, 'the first charge commits within a few events');
  }
  assert.match(await text(page, '[data-last-event]'), /commits ch_1/);
  await screenshot(page, 'double-click-midrun-desktop');
  await page.locator('#timeline').screenshot({ path: join(shots, 'double-click-timeline-midrun.png') });
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('double-click: play runs at half speed by default and stops when nothing is left', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/?sim=double-click&speed=4`);
  await ready(page);
  await page.click('[data-action="play"]');
  await page.waitForSelector('[data-action="play"]', { timeout: 20000 });
  assert.equal(await stat(page, 'time_s'), 8);
  assert.equal(await stat(page, 'charges'), 3);
  // The status and the list count the same events.
  const over = (await text(page, '[data-last-event]')).match(/The run is over \((\d+) events\)/);
  assert.ok(over, 'the status says the run is over');
  const listed = (await page.locator('summary', { hasText: 'Every event so far' }).textContent()).match(/Every event so far \((\d+)\)/);
  assert.ok(listed, 'the list says how many events it holds');
  assert.equal(over[1], listed[1]);
  assert.deepEqual(page.problems(), []);
  await page.context().close();

  const slow = await openPage(browser);
  await slow.goto(`${server.base}/?sim=double-click`);
  await ready(slow);
  assert.equal(await slow.$eval('select[name="speed"]', (s) => s.value), '0.5');
  assert.deepEqual(slow.problems(), []);
  await slow.context().close();
});

for (const [width, height, device] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
  for (const scheme of ['light', 'dark']) {
    test(`double-click on ${device}, ${scheme}: fits and draws`, async () => {
      const page = await openPage(browser, { width, height, colorScheme: scheme });
      await page.goto(`${server.base}/?sim=double-click`);
      await ready(page);
      await page.click('[data-action="skip"]');
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scroll <= width, `page is ${scroll}px wide on a ${width}px screen`);
      const canvas = await page.$eval('#timeline canvas', (c) => [c.width, c.height]);
      assert.ok(canvas[0] > 200 && canvas[1] > 150, `canvas ${canvas}`);
      await screenshot(page, `double-click-${device}-${scheme}`);
      await page.locator('#timeline').screenshot({ path: join(shots, `double-click-timeline-${device}-${scheme}.png`) });
      await chooseFix(page, 'key');
      await page.click('[data-action="skip"]');
      await screenshot(page, `double-click-key-${device}-${scheme}`);
      await page.locator('#timeline').screenshot({ path: join(shots, `double-click-timeline-key-${device}-${scheme}.png`) });
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}
