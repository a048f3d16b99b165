// Issue 44: `autoplay=view`. A figure plays while it is in the chapter's view and pauses when the
// reader scrolls past it; a Pause the reader pressed stays; a figure that asks for a prediction
// never starts by itself. Waits on the figures' own state and frames, never on time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage } from './harness.mjs';

const chapter = `<!doctype html><html><head><meta charset="utf-8"><title>Chapter</title></head>
<body style="margin:0;font-family:system-ui">
<p style="height:1400px">A long chapter paragraph before the figures.</p>
<iframe id="chain" src="/lab/?sim=deadline-chain&embed=1&autoplay=view&duration_ms=600000" title="Deadlines" style="width:720px;height:760px;border:0;display:block"></iframe>
<p style="height:1400px">Between the figures.</p>
<iframe id="slow" src="/lab/?sim=slow-server&embed=1&autoplay=view" title="One slow server" style="width:720px;height:760px;border:0;display:block"></iframe>
<p style="height:1400px">After the figures.</p>
</body></html>`;

let server, browser;
before(async () => { server = await serve({ '/chapter-autoplay.html': chapter }); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The figure in the iframe `id`, once it has rendered. */
async function figure(page, id) {
  const frame = await (await page.$(`#${id}`)).contentFrame();
  await frame.waitForSelector('[data-figure] [data-action="play"]:not([disabled])');
  return frame;
}

const clock = (frame) => frame.$eval('.play-controls .clock', (c) => Number(c.dataset.value));
const playing = async (frame) => (await frame.locator('[data-action="pause"]').count()) === 1;
/** Lets `n` of the frame's animation frames pass. */
const frames = (frame, n) => frame.evaluate((n) => new Promise((done) => {
  const next = () => (--n > 0 ? requestAnimationFrame(next) : done());
  requestAnimationFrame(next);
}), n);

test('autoplay=view: plays in view, pauses out of view, keeps the reader\'s Pause, never answers a prediction', async () => {
  const page = await openPage(browser, { width: 760, height: 800 });
  await page.goto(`${server.base}/chapter-autoplay.html`);
  const chain = await figure(page, 'chain');
  const slow = await figure(page, 'slow');
  await frames(chain, 20);
  assert.equal(await clock(chain), 0, 'out of view: not started');
  assert.equal(await playing(chain), false);

  await page.$eval('#chain', (f) => f.scrollIntoView());
  await chain.waitForFunction(() => Number(document.querySelector('.play-controls .clock').dataset.value) > 0);
  assert.ok(await playing(chain), 'in view: playing');

  await page.evaluate(() => window.scrollTo(0, 0));
  await chain.waitForSelector('[data-action="play"]');
  const left = await clock(chain);
  await frames(chain, 20);
  assert.equal(await clock(chain), left, 'scrolled out: paused where it was');

  await page.$eval('#chain', (f) => f.scrollIntoView());
  await chain.waitForSelector('[data-action="pause"]');
  await chain.click('[data-action="pause"]');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.$eval('#chain', (f) => f.scrollIntoView());
  await frames(chain, 20);
  assert.equal(await playing(chain), false, 'the reader\'s Pause stays');

  await page.$eval('#slow', (f) => f.scrollIntoView());
  await frames(slow, 30);
  assert.equal(await clock(slow), 0, 'a figure that asks for a prediction waits for Play');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
