// Issue 46, item 9: `theme=light|dark` forces a page's or figure's colour scheme whatever the
// reader's system uses (its background, its controls and its canvases), `theme=blue` is auto with
// a notice, the page's links keep it, and embed.js gives a lab frame the chapter's own scheme.
// Screenshots at 412 px, forced dark on a light system and forced light on a dark one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, skipToEnd } from './harness.mjs';

// The site's background and the canvases' text ink (static/style.css, src/ui/kit/chart/theme.rs).
const DARK = { bg: 'rgb(13, 17, 23)', ink: [230, 237, 243] };
const LIGHT = { bg: 'rgb(255, 255, 255)', ink: [31, 35, 40] };

/** The picture's pixels in each scheme's text ink: a canvas drawn dark has the one and not the other. */
async function canvasInk(page) {
  await page.waitForSelector('[data-picture] canvas[data-drawn]');
  return page.$eval('[data-picture] canvas', (c, inks) => {
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    const count = ([r, g, b]) => {
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] === r && data[i + 1] === g && data[i + 2] === b && data[i + 3] === 255) n++;
      return n;
    };
    return { dark: count(inks[0]), light: count(inks[1]) };
  }, [DARK.ink, LIGHT.ink]);
}

const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

let server, browser;
before(async () => {
  server = await serve();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

for (const [theme, system, want] of [['dark', 'light', DARK], ['light', 'dark', LIGHT]]) {
  test(`theme=${theme} on a ${system} system: the figure's background and picture are ${theme}`, async () => {
    const page = await openPage(browser, { width: 412, height: 900, colorScheme: system });
    await page.goto(`${server.base}/?sim=slow-server&embed=1&theme=${theme}`);
    await ready(page);
    await page.waitForSelector('[data-figure]');
    assert.equal(await page.getAttribute('html', 'data-theme'), theme);
    assert.equal(await page.$('[data-notices]'), null, 'no notice');
    assert.equal(await background(page), want.bg);
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme), theme, 'native controls too');
    const ink = await canvasInk(page);
    const [mine, other] = theme === 'dark' ? [ink.dark, ink.light] : [ink.light, ink.dark];
    assert.ok(mine > 20 && other === 0, `the picture's text is in the ${theme} ink: ${JSON.stringify(ink)}`);
    await screenshot(page, `theme-${theme}-on-${system}-412`);
    await skipToEnd(page);
    await screenshot(page, `theme-${theme}-on-${system}-412-end`);
    // The page's own links keep it: the full lab, the state link.
    assert.match(await page.getAttribute('a.open-full', 'href'), new RegExp(`[?&]theme=${theme}(&|$)`));
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}

test('the full page follows theme= too, and its embed snippet keeps it', async () => {
  const page = await openPage(browser, { width: 1280, colorScheme: 'light' });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`${server.base}/?sim=slow-server&theme=dark`);
  await ready(page);
  assert.equal(await background(page), DARK.bg);
  assert.equal(await page.$eval('.app-header .brand', (a) => getComputedStyle(a).color), 'rgb(230, 237, 243)');
  await page.click('[data-action="copy-embed"]');
  await page.waitForSelector('textarea[aria-label="Embed snippet"]', { timeout: 30000 });
  const snippet = await page.inputValue('textarea[aria-label="Embed snippet"]');
  assert.match(snippet, /src="[^"]*\?sim=slow-server&amp;[^"]*theme=dark/, snippet);
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('theme=blue: a notice, and the system scheme', async () => {
  const page = await openPage(browser, { width: 412, colorScheme: 'dark' });
  await page.goto(`${server.base}/?sim=slow-server&embed=1&theme=blue`);
  await ready(page);
  await page.waitForSelector('[data-figure]');
  assert.deepEqual(await page.$$eval('[data-notices] li', (els) => els.map((e) => e.textContent.trim())),
    ["theme: 'blue' is not light, dark or auto; using auto."]);
  assert.equal(await page.getAttribute('html', 'data-theme'), null);
  assert.equal(await background(page), DARK.bg, 'the dark system is followed');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

/** A chapter page with embed.js in its head, `head` and `body` its own, and lab frames. */
const chapter = (head, bodyStyle, frames) => `<!doctype html><html${head.html ?? ''}><head><meta charset="utf-8">${head.meta ?? ''}
<title>Chapter</title><script src="/lab/embed.js"></script></head>
<body style="margin:0;${bodyStyle}"><p>A chapter paragraph.</p>${frames}</body></html>`;
const labFrame = (id, query) => `<iframe id="${id}" src="/lab/?sim=slow-server&amp;embed=1${query}" title="Sim" style="width:100%;height:720px;border:0" data-lab-heights="360:1189,412:1125"></iframe>`;
const frames = [
  labFrame('plain', ''),
  // An older snippet, without data-lab-heights: its src is the page beside embed.js.
  '<iframe id="older" src="/lab/?sim=slow-server&amp;embed=1" title="Sim" style="width:100%;height:720px;border:0"></iframe>',
  labFrame('own', '&amp;theme=light'),
  labFrame('fragment', '#figure'),
  '<iframe id="other" src="/lab/other.html?sim=x" style="height:50px"></iframe>',
].join('\n');

test('embed.js gives lab frames the chapter\'s scheme unless the snippet sets one', async (t) => {
  const pages = {
    '/dark-background.html': chapter({}, 'background:#1b1b1f;color:#ddd', frames),
    '/data-theme.html': chapter({ html: ' data-theme="dark"' }, '', frames),
    '/meta-dark.html': chapter({ meta: '<meta name="color-scheme" content="dark">' }, '', frames),
    '/light-background.html': chapter({}, 'background:#fff', frames),
    '/says-nothing.html': chapter({ meta: '<meta name="color-scheme" content="light dark">' }, '', frames),
    '/lab/other.html': '<!doctype html><title>Not a lab</title><p>Another page beside the lab.</p>',
  };
  const host = await serve(pages);
  t.after(() => host.close());
  const src = (page, id) => page.getAttribute(`#${id}`, 'src');
  for (const [path, theme] of [['/dark-background.html', 'dark'], ['/data-theme.html', 'dark'], ['/meta-dark.html', 'dark'],
    ['/light-background.html', 'light'], ['/says-nothing.html', null]]) {
    const page = await openPage(browser, { width: 412, height: 900, colorScheme: 'light' });
    await page.goto(`${host.base}${path}`);
    const added = theme ? `&theme=${theme}` : '';
    assert.equal(await src(page, 'plain'), `/lab/?sim=slow-server&embed=1${added}`, path);
    assert.equal(await src(page, 'own'), '/lab/?sim=slow-server&embed=1&theme=light', `${path}: the snippet's own theme stays`);
    assert.equal(await src(page, 'older'), `/lab/?sim=slow-server&embed=1${added}`, path);
    assert.equal(await src(page, 'fragment'), `/lab/?sim=slow-server&embed=1${added}#figure`, path);
    assert.equal(await src(page, 'other'), '/lab/other.html?sim=x', `${path}: a frame that is not a lab is left alone`);
    if (path === '/dark-background.html') {
      const frame = page.frameLocator('#plain');
      await frame.locator('[data-figure]').waitFor({ timeout: 15000 });
      assert.equal(await frame.locator('html').getAttribute('data-theme'), 'dark');
      await screenshot(page, 'theme-embed-js-dark-chapter-412');
    }
    assert.deepEqual(page.problems(), [], path);
    await page.context().close();
  }
});
