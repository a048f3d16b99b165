// Each page's one style sheet (scripts/site.mjs assembles the home page's from the site's
// style.css, a simulation's from the site's, the kit's and its page's) reaches the browser whole:
// every rule of it parses (a stray "*/" in a comment, or a typo, makes the browser drop a rule
// silently), a simulation's page gets its own page's rules and no other's, and its colours hold
// in light and dark.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarioIds, dist } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The rules at the top level of a style sheet's text (each `{` outside any block), comments removed as CSS does. */
function topLevelRules(css) {
  let depth = 0;
  let rules = 0;
  for (const c of css.replace(/\/\*[\s\S]*?\*\//g, '')) {
    if (c === '{' && depth++ === 0) rules += 1;
    if (c === '}') depth -= 1;
  }
  return rules;
}

/** The page's style sheets: each one's URL, its text as served, and the rules the browser kept. */
async function sheets(page) {
  const hrefs = await page.$$eval('link[rel="stylesheet"]', (links) => links.map((l) => l.href));
  return Promise.all(hrefs.map(async (href) => ({
    href,
    text: await (await fetch(href)).text(),
    parsed: await page.evaluate((url) => [...document.styleSheets].find((s) => s.href === url).cssRules.length, href),
  })));
}

/** The page folders (src/ui/pages/<folder>/style.css) a sheet's text carries, by their comments. */
const pagesIn = (css) => [...css.matchAll(/\/\* src\/ui\/pages\/(\w+)\//g)].map((m) => m[1]);

const root = join(dist, '..');
const pageFolders = readdirSync(join(root, 'src', 'ui', 'pages'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && readdirSync(join(root, 'src', 'ui', 'pages', d.name)).includes('style.css'))
  .map((d) => d.name);

test('every rule of each page\'s style sheet parses; a simulation gets its own page\'s rules and no other\'s', async () => {
  const page = await openPage(browser);
  for (const path of ['', ...scenarioIds().map((id) => `?sim=${id}`)]) {
    await page.goto(`${server.base}/${path}`);
    await ready(page);
    const [sheet, ...more] = await sheets(page);
    assert.deepEqual(more, [], `${path || 'home'}: one style sheet`);
    assert.ok(sheet.parsed > (path ? 100 : 20), `${path || 'home'}: ${sheet.parsed} rules`);
    assert.equal(sheet.parsed, topLevelRules(sheet.text), `${path || 'home'}: the browser kept every rule the sheet has`);
    const id = path.replace('?sim=', '');
    const own = pageFolders.filter((f) => f === id.replaceAll('-', '_'));
    assert.deepEqual(pagesIn(sheet.text), own, `${path || 'home'}: the pages' rules in its sheet`);
    if (!path) assert.doesNotMatch(sheet.text, /\/\* src\/ui\/kit\//, "the home page's sheet has no kit rules");
  }
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`the site's colours and the kit's layout apply on every page (${colorScheme})`, async () => {
    const page = await openPage(browser, { colorScheme });
    for (const path of ['', ...scenarioIds().map((id) => `?sim=${id}`)]) {
      await page.goto(`${server.base}/${path}`);
      await ready(page);
      const seen = await page.evaluate(() => ({
        border: getComputedStyle(document.documentElement).getPropertyValue('--border').trim(),
        background: getComputedStyle(document.body).backgroundColor,
        panel: document.querySelector('.panel, .card') && getComputedStyle(document.querySelector('.panel, .card')).borderTopStyle,
      }));
      const light = colorScheme === 'light';
      assert.equal(seen.border, light ? '#d0d7de' : '#30363d', `${path || 'home'}: --border`);
      assert.equal(seen.background, light ? 'rgb(255, 255, 255)' : 'rgb(13, 17, 23)', `${path || 'home'}: the page's background`);
      assert.equal(seen.panel, 'solid', `${path || 'home'}: the panel (or a home card) has its border`);
      if (path) assert.equal(await page.$eval('.sim-layout', (e) => getComputedStyle(e).display), 'grid', `${path}: the kit's layout`);
    }
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  });
}
