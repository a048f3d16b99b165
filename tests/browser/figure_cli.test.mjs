// Issue 46: `resilience-lab figure` draws a figure's picture with the page's own drawing code.
// The page, paused at a moment, and `figure --url … --at-ms … --width … --svg` for the same link,
// moment and width draw the same labels, and the page's picture (or, for the three simulations
// headed by one, its request timeline; for which-timeout's failover, its calls' chart) is as
// tall as the command's; the
// caption under the SVG's picture holds the embed's headline cards and its verdict's lead. At
// 412 and 720 px light, and at 360 px with the link's `theme=dark`, which the command draws too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, pausedPicture, pictureLabels, cli, plain, ready, playFor } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const unescape = (t) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

/** One part of `figure`'s SVG (`picture` or `caption`): its size and its texts. */
function part(svg, id) {
  const [whole, w, h] = svg.match(new RegExp(`<svg id="${id}" [^>]*width="([\\d.]+)" height="([\\d.]+)"[^]*?</svg>`));
  const texts = [...whole.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]));
  return { w: Number(w), h: Number(h), texts };
}

/** The picture and the caption `figure` draws for the link `query` at `atMs`, `width` px wide. */
function figureAt(query, atMs, width) {
  const params = new URLSearchParams(query);
  for (const key of ['embed', 'presets', 'controls']) params.delete(key);
  const svg = cli(['figure', '--url', `?${params}`, '--at-ms', String(atMs), '--width', String(width), '--svg']);
  const caption = part(svg, 'caption');
  // A value too wide for its card (an error's name) is broken after an underscore: one value.
  caption.texts = caption.texts.reduce((out, t) => (out.at(-1)?.endsWith('_') ? out.push(out.pop() + t) : out.push(t), out), []);
  return { svg, picture: part(svg, 'picture'), caption };
}

/** The embed's headline cards as a reader reads them (label, value, unit) and its verdict's lead. */
async function pageCaption(page) {
  const cards = await page.$$eval('.stat[data-headline]', (cards) => cards.flatMap((c) => {
    const unit = c.querySelector('.unit');
    const shown = unit && !unit.hidden ? [unit.textContent] : [];
    return [c.querySelector('.label').textContent, c.querySelector('.value').textContent, ...shown];
  }));
  // The kit's verdict shows its lead before a "Why?"; double-click's is one paragraph.
  const verdict = (await page.$('.figure-verdict .lead')) ? '.figure-verdict .lead' : '.figure-verdict [data-verdict]';
  return { cards: cards.map(plain), verdict: plain(await page.textContent(verdict)) };
}

/** A card's label as the SVG writes it: whole, or cut with an ellipsis where it would not fit. */
const sameLabel = (drawn, label) => drawn === label || (drawn.endsWith('…') && label.startsWith(drawn.slice(0, -1).trimEnd()));

const cases = [
  ['slow-server', 'sim=slow-server&embed=1&presets=chapter,least-outstanding', 6000],
  ['slow-server, least outstanding', 'sim=slow-server&embed=1&preset=least-outstanding', 12000],
  ['cascade, the timeout', 'sim=cascade&embed=1&preset=timeout', 3000],
  ['cascade, the bulkhead', 'sim=cascade&embed=1&preset=bulkhead', 1500],
  ['retry-storm, Fixed 1 s', 'sim=retry-storm&embed=1&preset=fixed', 6050],
  ['at-least-once', 'sim=at-least-once&embed=1', 20000],
  ['choosing-numbers, Break 2', 'sim=choosing-numbers&embed=1&preset=ch1-break-2', 4000],
];

const views = [[412, ''], [720, ''], [360, '&theme=dark']];

/**
 * The labels and size of the canvas `selector` (a timeline's, a chart's), on the page paused `ms`
 * of its clock into the link's run, and the moment paused at. Drawn as wide as the canvas's box
 * and as tall as its box (a chart) or, when the page sets it, its style (a timeline: its 1 px
 * border is inside that height).
 */
async function pausedCanvas(page, query, ms, selector) {
  await page.clock.install();
  await page.goto(`${server.base}/?${query}`);
  await ready(page);
  await playFor(page, ms);
  // The canvas draws in the frame after the run moved, or within 250 ms when out of view.
  await page.clock.runFor(300);
  const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
  const drawn = await page.$eval(selector, (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: parseFloat(c.style.height) || c.clientHeight }));
  return { atMs: Math.round(seconds * 1e6) / 1000, drawn };
}

/** The page paused at `atMs` and `figure` at that moment draw one figure: picture, cards, verdict, theme. */
async function sameFigure(page, link, atMs, drawn, theme) {
  const { svg, picture, caption } = figureAt(link, atMs, drawn.w);
  assert.deepEqual([picture.w, picture.h], [drawn.w, drawn.h], 'the same size');
  assert.deepEqual(picture.texts, drawn.labels.map((l) => l.text), 'the same labels, in the order drawn');
  const shown = await pageCaption(page);
  const cards = caption.texts.slice(0, shown.cards.length);
  assert.equal(cards.length, shown.cards.length, `the cards: ${caption.texts.join(' | ')}`);
  cards.forEach((text, i) => assert.ok(sameLabel(text, shown.cards[i]), `card text ${i}: "${text}" for "${shown.cards[i]}"`));
  assert.equal(caption.texts.slice(shown.cards.length).join(' '), shown.verdict, 'the verdict');
  const dark = await page.evaluate(() => document.documentElement.dataset.theme === 'dark');
  assert.equal(dark, theme !== '', 'the page draws in the theme the link asks for');
  assert.equal(svg.includes('fill="#0d1117"'), dark, 'and so does the command');
  assert.deepEqual(page.problems(), []);
}

for (const [what, query, ms] of cases) {
  for (const [width, theme] of views) {
    const link = query + theme;
    test(`${what} at ${width} px${theme ? ', dark' : ''}: the page and \`figure --svg\` draw the same picture, cards and verdict`, async () => {
      const page = await openPage(browser, { width, height: 900 });
      const { atMs } = await pausedPicture(page, server.base, link, ms);
      await sameFigure(page, link, atMs, await pictureLabels(page), theme);
      await page.context().close();
    });
  }
}

// Headed by a canvas of the kit's rather than a picture: a request timeline, or which-timeout's
// failover (Break 5, and its answer), a line chart of its calls.
const headlines = [
  ['deadline-chain\'s timeline', 'sim=deadline-chain&embed=1', 2500, '#timeline canvas'],
  ['double-click\'s timeline', 'sim=double-click&embed=1', 2000, '#timeline canvas'],
  ['which-timeout\'s timeline', 'sim=which-timeout&embed=1', 3000, '#timeline canvas'],
  ['which-timeout\'s failover chart', 'sim=which-timeout&embed=1&preset=ch1-break-5', 3000, '#chart-failover canvas'],
  ['which-timeout\'s failover chart, its answer', 'sim=which-timeout&embed=1&preset=ch1-break-5-fix', 2000, '#chart-failover canvas'],
];

for (const [what, query, ms, selector] of headlines) {
  for (const [width, theme] of views) {
    const link = query + theme;
    test(`${what} at ${width} px${theme ? ', dark' : ''}: the page and \`figure --svg\` draw the same headline, cards and verdict`, async () => {
      const page = await openPage(browser, { width, height: 900 });
      const { atMs, drawn } = await pausedCanvas(page, link, ms, selector);
      assert.ok(atMs > 0, `paused mid-run (at ${atMs} ms)`);
      await sameFigure(page, link, atMs, drawn, theme);
      await page.context().close();
    });
  }
}
