// Issue 46, item 6: a chapter whose Markdown renderer escapes a copied snippet's `&amp;` again
// (`&amp;amp;` in its HTML) gives the browser a link with `&amp;` in it, so each key after the
// first starts with `amp;`. The frame still shows the figure, never the full app: no site header,
// the figure at its README height, one notice saying the link was read as meant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, openPage, screenshot, frameWith } from './harness.mjs';

const NOTICE = "This link's & were escaped twice (&amp;amp;): read as meant.";

/** The README's first snippet: its query, its height at 412 px and the whole iframe tag. */
async function firstSnippet() {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const m = /<iframe src="https:\/\/example\.org\/lab\/(\?[^"]+)"([^>]*)><\/iframe>/s.exec(readme);
  return { query: m[1], attrs: m[2], height412: Number(/412:(\d+)/.exec(m[2])[1]) };
}

/** A chapter page as such a renderer writes it: the snippet's `&` as `&amp;amp;`, embed.js in the head. */
const chapter = (s) => `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chapter</title>
<script src="/lab/embed.js"></script></head>
<body style="margin:0"><p>A paragraph of the chapter.</p>
<iframe id="sim" src="/lab/${s.query.replaceAll('&', '&amp;amp;')}"${s.attrs}></iframe>
<script>
  window.heights = [];
  addEventListener('message', (e) => { if (e.data && e.data.type === 'resilience-lab:height') window.heights.push(e.data.height); });
</script></body></html>`;

let server, browser, snippet;
before(async () => {
  snippet = await firstSnippet();
  server = await serve({ '/chapter.html': chapter(snippet) });
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

test("the README's first snippet escaped twice shows its figure at its height, with one notice", async () => {
  const page = await openPage(browser, { width: 412, height: 900 });
  await page.goto(`${server.base}/chapter.html`);
  const frame = await frameWith(page, 'sim=slow-server');
  assert.ok(frame.url().includes('&amp;embed=1'), `the browser's link has the literal &amp;: ${frame.url()}`);
  await frame.waitForSelector('[data-figure]', { timeout: 15000 });
  assert.equal(await frame.locator('.app-header, .app-footer').count(), 0, 'no site header or footer');
  assert.equal(await frame.locator('html[data-view="embed"]').count(), 1, 'the loader took it for an embed');
  assert.deepEqual(await frame.$$eval('[data-notices]', (els) => els.map((e) => e.textContent.trim())), [NOTICE]);
  // Only the controls the snippet names, as when it is not escaped.
  const named = new URLSearchParams(snippet.query).get('controls').split(',');
  const shown = await frame.$$eval('aside.panel input', (els) => [...new Set(els.map((e) => e.name))]);
  assert.deepEqual(shown.sort(), named.sort());
  // The figure is as tall as the README says at 412 px, plus the notice's own box.
  await page.waitForFunction(() => window.heights.length > 0, null, { timeout: 15000 });
  const { body, notice } = await frame.evaluate(() => {
    const box = document.querySelector('[data-notices]');
    const style = getComputedStyle(box);
    return { body: document.body.scrollHeight, notice: box.offsetHeight + parseFloat(style.marginTop) + parseFloat(style.marginBottom) };
  });
  assert.ok(Math.abs(body - notice - snippet.height412) <= 8, `${body} px with a ${notice} px notice; the README says ${snippet.height412} without`);
  await page.waitForFunction(() => document.getElementById('sim').clientHeight === window.heights.at(-1));
  await screenshot(page, 'escaped-twice-412');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});
