// The one style sheet (scripts/site.mjs assembles it from the site's, the kit's and each page's
// style.css) reaches the browser whole: every rule of it parses (a stray "*/" in a comment, or a
// typo, makes the browser drop a rule silently), and its colours hold in light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, scenarioIds } from './harness.mjs';

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

test('every rule of the style sheet parses', async () => {
  const page = await openPage(browser);
  await page.goto(`${server.base}/`);
  await ready(page);
  const href = await page.$eval('link[rel="stylesheet"]', (l) => l.href);
  const text = await (await fetch(href)).text();
  const parsed = await page.evaluate((url) => [...document.styleSheets].find((s) => s.href === url).cssRules.length, href);
  assert.ok(parsed > 100, `${parsed} rules`);
  assert.equal(parsed, topLevelRules(text), 'the browser kept every rule the sheet has');
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
