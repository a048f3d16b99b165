// Issue 44: at-least-once's figure is headed by a picture of the messages and the ledger, drawn
// from the run's own state. What the picture says it draws (`data-drawn`) at a paused moment is
// what `run --at-ms` says the model held then: the ledger's events credited twice, lost and
// parked, its balance, the crashes and redeliveries so far, the dead-letter queue. (The broker's
// and the consumers' counts are checked against the model in tests/at_least_once.rs.)
// Screenshots at 360, 412 and 720 px, light and dark, go to target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, pausedPicture, cliRun, screenshot, cliAt } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The labels the picture drew in its latest frame. */
const labelsOf = async (page) => JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-labels'));

// [what, query, page ms to play, what must show at that moment]
const cases = [
  ['process, then ack (the chapter)', 'sim=at-least-once&embed=1&preset=process-first', 6000,
    (d) => d.duplicated > 0 && d.leases_of_crashed > 0],
  ['ack, then process', 'sim=at-least-once&embed=1&preset=ack-first', 6000, (d) => d.lost > 0 && d.duplicated === 0],
  // SQS dead-letters on the receive after the last lease runs out: the first are moved after 80 s.
  ['dead-letter queue', 'sim=at-least-once&embed=1&preset=dead-letter', 14000, (d) => d.dead_letter_queue > 0],
  ['jobs longer than the lease', 'sim=at-least-once&embed=1&preset=long-jobs', 9000, (d) => d.crashes === 0],
];

for (const [what, query, ms, shows] of cases) {
  test(`at-least-once, ${what}: the picture draws what the model holds at the paused moment (run --at-ms)`, async () => {
    const page = await openPage(browser, { width: 412, height: 900 });
    const { atMs, drawn } = await pausedPicture(page, server.base, query, ms);
    assert.ok(atMs > 1000, `played a while: ${atMs} ms`);
    assert.equal(drawn.at_ms, atMs, 'the picture is of the moment paused at');
    const run = cliAt(query, atMs);
    for (const key of ['duplicated', 'lost', 'in_dead_letter_queue', 'ledger_balance', 'expected_balance', 'crashes', 'redeliveries']) {
      assert.equal(drawn[key], run[key], key);
    }
    assert.equal(drawn.dead_letter_queue, run.dead_lettered - run.redriven, 'the dead-letter queue');
    const entries = ['duplicated', 'lost', 'in_dead_letter_queue', 'credited_once', 'uncredited', 'unpublished'];
    assert.equal(entries.reduce((n, k) => n + drawn[k], 0), run.facts.messages, 'a square per event');
    assert.ok(drawn.credited_once >= run.effectively_once, 'settled once are among those credited once');
    assert.ok(drawn.ready_drawn <= drawn.ready && drawn.ready_after_crash + drawn.ready_after_lease <= drawn.ready);
    assert.ok(drawn.consumers_busy + drawn.consumers_restarting <= run.params.consumers);
    assert.ok(shows(drawn), `${what}: ${JSON.stringify(drawn)}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('at-least-once, process then ack: a crashed consumer\'s lease runs out, and the double credit is written on the ledger', async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, 'sim=at-least-once&embed=1&preset=process-first', 6000);
  const texts = (await labelsOf(page)).map((l) => l.text);
  assert.ok(texts.includes(`credited twice: ${drawn.duplicated}`), texts.join(' | '));
  const n = drawn.leases_of_crashed;
  const crashed = new RegExp(`^(Out of sight: )?${n} leases? of crashed(,| consumers, next) back in \\d+ s`);
  assert.ok(texts.some((t) => crashed.test(t)), texts.join(' | '));
  await page.context().close();
});

test('at-least-once: a message that came back is drawn as such while a consumer works on it', async () => {
  // Jobs of 45 s against a 30 s lease: the message comes back while its first job runs.
  const page = await openPage(browser, { width: 720, height: 900 });
  const { drawn } = await pausedPicture(page, server.base, 'sim=at-least-once&embed=1&preset=long-jobs', 9000);
  assert.ok(drawn.consumers_busy_came_back + drawn.ready_after_lease > 0 || drawn.duplicated > 0, JSON.stringify(drawn));
  await page.context().close();
});

test('at-least-once: the picture is the figure\'s headline, and chart=timeline still picks the timeline', async () => {
  const page = await openPage(browser, { width: 720, height: 900 });
  await page.goto(`${server.base}/?sim=at-least-once&embed=1`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart [data-picture]').count(), 1, 'the picture heads the figure');
  await page.waitForSelector('.figure-chart [data-picture] canvas[data-drawn]');
  const texts = (await labelsOf(page)).map((l) => l.text);
  assert.deepEqual(texts, ['Queue: 0 ready', "Out of sight: none (a crashed consumer's message waits here)", 'Consumers: 0 busy', 'credited twice: 0', 'Ledger: $0 of $0 expected'], 'before Play');
  await page.goto(`${server.base}/?sim=at-least-once&embed=1&chart=timeline`);
  await ready(page);
  assert.equal(await page.locator('.figure-chart #timeline').count(), 1);
  assert.equal(await page.locator('[data-picture]').count(), 0, 'the picture is a part like the others');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

const shown = [
  ['process-first', 6000],
  ['ack-first', 6000],
  ['dead-letter', 3000],
  ['short-window', 20000],
  // Every event a square: 5,000 at the smallest pitch, and 16 consumers in a row.
  ['long-jobs&messages=5000&publish_rate=200', 4000],
];

for (const width of [360, 412, 720]) for (const scheme of ['light', 'dark']) {
  test(`at-least-once's picture at ${width} px, ${scheme}: every label inside the canvas, none overlapping`, async () => {
    // One page loads every preset in turn: the same fresh load at this size and scheme.
    const page = await openPage(browser, { width, height: 900, colorScheme: scheme });
    for (const [preset, ms] of shown) {
      const { drawn } = await pausedPicture(page, server.base, `sim=at-least-once&embed=1&preset=${preset}`, ms);
      const { labels, w, h } = await page.$eval('[data-picture] canvas', (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight }));
      const texts = labels.map((l) => l.text).join(' | ');
      for (const start of [/^Queue: /, /^(Out of sight: |[\d,]+ leases? of crashed|outbox|late|DLQ)/, /^(Consumers: )?\d+ busy/, /^(Ledger: )?\$/]) {
        assert.ok(labels.some((l) => start.test(l.text)), `${preset}: ${start}: ${texts}`);
      }
      assert.ok(labels.some((l) => l.text.endsWith(`twice: ${drawn.duplicated}`) || l.text.endsWith(`twice ${drawn.duplicated}`)), `${preset}: the headline: ${texts}`);
      for (const l of labels) assert.ok(l.x >= 0 && l.y >= 0 && l.x + l.w <= w + 0.01 && l.y + l.h <= h + 0.01, `${preset}: "${l.text}" is cut`);
      for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
        const [a, b] = [labels[i], labels[j]];
        assert.ok(!(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h), `${preset}: "${a.text}" overlaps "${b.text}"`);
      }
      const box = await page.$eval('.figure-chart > .figure-chart-inner', (b) => [b.scrollHeight, b.clientHeight]);
      assert.ok(box[0] <= box[1] + 1, `${preset}: the picture and its legend fit the figure's chart box: ${box}`);
      await screenshot(page, `alo-picture-${preset.replace(/[&=]/g, '-')}-${width}-${scheme}`);
      assert.deepEqual(page.problems(), [], preset);
    }
    await page.context().close();
  });
}
