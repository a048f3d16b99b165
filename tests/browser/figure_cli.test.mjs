// Issue 46: `resilience-lab figure` draws a figure's picture with the page's own drawing code.
// The page, paused at a moment, and `figure --url … --at-ms … --width … --svg` for the same link,
// moment and width draw the same labels, and the page's picture is as tall as the command's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, pausedPicture, pictureLabels, cli } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The SVG's size and its texts, as `figure` draws the link `query` at `atMs`, `width` px wide. */
function figureAt(query, atMs, width) {
  const params = new URLSearchParams(query);
  for (const key of ['embed', 'presets', 'controls']) params.delete(key);
  const svg = cli(['figure', '--url', `?${params}`, '--at-ms', String(atMs), '--width', String(width), '--svg']);
  const unescape = (t) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const texts = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]));
  const [, w, h] = svg.match(/^<svg [^>]*width="([\d.]+)" height="([\d.]+)"/);
  return { w: Number(w), h: Number(h), texts };
}

const cases = [
  ['slow-server', 'sim=slow-server&embed=1&presets=chapter,least-outstanding', 6000],
  ['slow-server, least outstanding', 'sim=slow-server&embed=1&preset=least-outstanding', 12000],
  ['cascade, the timeout', 'sim=cascade&embed=1&preset=timeout', 3000],
  ['cascade, the bulkhead', 'sim=cascade&embed=1&preset=bulkhead', 1500],
  ['retry-storm, Fixed 1 s', 'sim=retry-storm&embed=1&preset=fixed', 6050],
  ['at-least-once', 'sim=at-least-once&embed=1', 20000],
  ['choosing-numbers, Break 2', 'sim=choosing-numbers&embed=1&preset=ch1-break-2', 4000],
];

for (const [what, query, ms] of cases) {
  for (const width of [412, 720]) {
    test(`${what} at ${width} px: the page and \`figure --svg\` draw the same labels at the same moment`, async () => {
      const page = await openPage(browser, { width, height: 900 });
      const { atMs } = await pausedPicture(page, server.base, query, ms);
      const drawn = await pictureLabels(page);
      const figure = figureAt(query, atMs, drawn.w);
      assert.deepEqual([figure.w, figure.h], [drawn.w, drawn.h], 'the same size');
      assert.deepEqual(figure.texts, drawn.labels.map((l) => l.text), 'the same labels, in the order drawn');
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    });
  }
}
