// Issue 45, item 3: a control the model does not read with the other settings is disabled, keeps
// its value and says why (the declaration's `only_with`, `list --json`'s key of that name); and
// case 10: which-timeout's verdict names the moment its "Gave up at" card shows. Screenshots at
// 360, 412 and 720 px, light and dark, go to target/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, ready, screenshot, scenarios, skipToEnd, plain } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** A control as a reader meets it: disabled or not, its value, the reason shown under it. */
async function control(page, name) {
  return page.$eval(`[name="${name}"]`, (input) => {
    const box = input.closest('.slider, .toggle, fieldset');
    const why = box.querySelector('.unused-why');
    return {
      disabled: input.disabled,
      aria: input.getAttribute('aria-disabled') ?? box.getAttribute('aria-disabled'),
      value: input.value,
      why: why && why.offsetParent !== null ? why.textContent.trim() : null,
      described: input.getAttribute('aria-describedby'),
      opacity: Number(getComputedStyle(input).opacity),
    };
  });
}

async function open(query, { width = 412, colorScheme = 'light' } = {}) {
  const page = await openPage(browser, { width, height: 900, colorScheme });
  await page.goto(`${server.base}/?${query}`);
  await ready(page);
  return page;
}

test('the declaration says when each parameter is used, in list --json', () => {
  const cascade = scenarios().find((s) => s.id === 'cascade');
  const recs = cascade.params.find((p) => p.id === 'recs_timeout_ms');
  assert.deepEqual(recs.only_with, { param: 'variant', values: ['timeout', 'both'], why: 'the fix has no timeout' });
  assert.equal(cascade.params.find((p) => p.id === 'pool_size').only_with, undefined);
});

test('cascade, Separate pool: the recommendations timeout is disabled, says why, and keeps its value', async () => {
  for (const width of [360, 412, 720]) {
    for (const colorScheme of ['light', 'dark']) {
      const page = await open('sim=cascade&embed=1&preset=bulkhead', { width, colorScheme });
      const off = await control(page, 'recs_timeout_ms');
      assert.equal(off.disabled, true, `${width}: disabled`);
      assert.equal(off.aria, 'true');
      assert.equal(off.why, 'Not used with Separate pool: the fix has no timeout.', `${width}: the reason, visible`);
      assert.match(off.described, /why-recs_timeout_ms/, 'the reason is read with the control');
      assert.ok(off.opacity < 1, 'faded');
      assert.equal(off.value, '300', 'its value kept');
      assert.equal((await control(page, 'pool_size')).disabled, false, 'the pool is used');
      await screenshot(page, `unused-cascade-bulkhead-${width}-${colorScheme}`);
      if (width === 412 && colorScheme === 'light') {
        await page.click('label:has(input[name="variant"][value="timeout"])');
        const on = await control(page, 'recs_timeout_ms');
        assert.deepEqual([on.disabled, on.aria, on.why, on.value], [false, null, null, '300'], 'Timeout reads it');
        assert.equal(on.opacity, 1);
      }
      assert.deepEqual(page.problems(), []);
      await page.context().close();
    }
  }
});

test('which-timeout, node:http: undici\'s timers are disabled, the AbortSignal is not', async () => {
  const page = await open('sim=which-timeout&embed=1&client=node-http&fault=silent');
  for (const name of ['connect_timeout_ms', 'headers_timeout_ms']) {
    const off = await control(page, name);
    assert.equal(off.disabled, true, name);
    assert.equal(off.why, 'Not used with node:http: undici\'s timers are fetch\'s.', name);
  }
  assert.equal((await control(page, 'total_timeout_ms')).disabled, false, 'AbortSignal.timeout works with both');
  await screenshot(page, 'unused-which-timeout-node-http-412');
  await page.click('label:has(input[name="client"][value="fetch"])');
  assert.equal((await control(page, 'headers_timeout_ms')).disabled, false, 'fetch reads them');
  assert.deepEqual(page.problems(), []);
  await page.context().close();
});

test('which-timeout, AbortSignal.timeout(3000) on a trickle: the verdict names the card\'s moment', async () => {
  for (const query of ['sim=which-timeout&embed=1&preset=abort-trickle', 'sim=which-timeout&preset=abort-trickle']) {
    const page = await open(query);
    await skipToEnd(page);
    const card = await page.$eval('[data-stat="gave_up_ms"]', (el) => `${el.querySelector('.value').textContent} ${el.querySelector('.unit').textContent}`.replace(/\s+/g, ' ').trim());
    assert.equal(card, '3,003 ms');
    const verdict = plain(await page.textContent('[data-verdict] .lead'));
    assert.ok(verdict.includes(`the caller saw the error at ${card}`), verdict);
    assert.ok(verdict.includes('at 3,001 ms: 1 ms after its deadline'), `the timer's own moment, named apart: ${verdict}`);
    assert.deepEqual(page.problems(), []);
    await page.context().close();
  }
});
