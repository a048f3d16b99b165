import { serve, launch, openPage, ready, skipToEnd } from './harness.mjs';
const server = await serve(); const browser = await launch();
for (const [q, w] of [['sim=which-timeout&embed=1', 360], ['sim=deadline-chain&embed=1', 360]]) {
  const page = await openPage(browser, { width: w, height: 900 });
  await page.goto(`${server.base}/?${q}`); await ready(page); await skipToEnd(page);
  const name = q.replace(/[=&]/g, '_');
  const el = await page.$('.stats');
  await el.scrollIntoViewIfNeeded();
  await el.screenshot({ path: `target/screenshots/zz_stats_${name}_${w}.png` });
  const cut = await page.$$eval('.stat', (els) => els.flatMap((e) => [...e.querySelectorAll('.value, .label, .note')].filter((x) => x.scrollWidth > x.clientWidth + 1).map((x) => `${e.dataset.stat} ${x.className}: "${x.textContent}" ${x.scrollWidth}>${x.clientWidth}`)));
  console.log(q, w, cut);
  await page.context().close();
}
await browser.close(); await server.close();
