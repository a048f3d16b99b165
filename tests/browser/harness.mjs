// Shared by the browser tests: serves dist/ on 127.0.0.1 (at / and under the sub-path /lab/),
// launches Debian's Chromium through playwright-core, and fails a page on any console error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from '../../scripts/static-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = join(root, 'dist');
export const shots = join(root, 'target', 'screenshots');

/** Serves dist/ at / and at /lab/, plus test-only host pages (see scripts/static-server.mjs). */
export async function serve(extra = {}, { isolated = false, gzip = false } = {}) {
  return serveDir(dist, { extra, isolated, gzip });
}

// playwright's launch() always starts Chromium with a fresh temporary profile.
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic',
    ],
  });
}

/**
 * Makes `page`'s next load look as a new `openPage(browser, options)` would load it: that
 * viewport and colour scheme. A test that loads several states at several sizes reuses one page:
 * a new page costs a renderer process (0.4 s on 2 busy cores), more than the load itself.
 */
export async function viewAs(page, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme });
}

/**
 * A page that records console errors, uncaught exceptions and any request that leaves
 * 127.0.0.1. `page.problems()` returns them; tests assert it is empty.
 */
export async function openPage(browser, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !['data:', 'blob:', 'about:'].includes(u.protocol)) {
      problems.push(`request to another host: ${r.url()}`);
    }
  });
  page.problems = () => problems;
  return page;
}

/**
 * The page's frame whose URL contains `part`, once it has navigated there. A lazy frame
 * (`loading="lazy"`) may not have started when `goto` resolves, so this waits for it.
 */
export async function frameWith(page, part, timeout = 15000) {
  const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f.url().includes(part), timeout });
  const found = page.frames().find((f) => f.url().includes(part));
  if (!found) return navigated;
  navigated.catch(() => {});
  return found;
}

/** Waits until the app has rendered (the loading line is gone and main exists). */
export async function ready(page) {
  // The home page (no simulation shown) is ready once its list of simulations, fetched by the
  // loader, is in. A module's first load on a busy machine (two builds beside the suite) took
  // over 15 s: the wait is for the state, as long as it takes within a minute.
  await page.waitForFunction(
    () => document.querySelector('main') && (document.documentElement.dataset.view || !document.querySelector('[data-cards][aria-busy]')),
    null,
    { timeout: 60000 },
  );
}

export async function screenshot(page, name) {
  await mkdir(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/** The numeric data-value of a stat card. */
export async function stat(page, key) {
  const v = await page.getAttribute(`[data-stat="${key}"]`, 'data-value');
  return v === null || v === '' ? null : Number(v);
}

/** Sets a range input's value the way a user's drag does (input event). */
export async function setSlider(page, name, value) {
  await page.$eval(`input[type="range"][name="${name}"]`, (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);
}

/**
 * Every scenario's declaration as the CLI lists it (`resilience-lab list --json`): the tests
 * take the scenario ids, presets and parameters from here, never from a list of their own.
 */
let declarations;
export function scenarios() {
  declarations ??= cliRun(['list', '--json']);
  return declarations;
}

/** The scenario ids, in the app's order. */
export function scenarioIds() {
  return scenarios().map((s) => s.id);
}

/** Waits until the run has reached its end (the clock's exact time, in seconds, is its end). */
export async function untilFinished(page, timeout = 30000) {
  await page.waitForFunction(() => {
    const clock = document.querySelector('.play-controls .clock');
    return clock && clock.dataset.end && Number(clock.dataset.value) >= Number(clock.dataset.end);
  }, null, { timeout });
}

/**
 * Stops the page's clock: from here it moves only as the test moves it (`page.clock.runFor`),
 * one animation frame every 16 ms, so what happens does not depend on how busy the machine is.
 * The page must have loaded after `page.clock.install()`.
 */
export async function holdClock(page) {
  // The clock runs until it is paused, and pausing goes forward to a time not yet past: ask for
  // a little ahead of the page's time, further ahead if the machine was slower than that.
  for (let ahead = 100; ; ahead *= 4) {
    const at = await page.evaluate((ahead) => Date.now() + ahead, ahead);
    const paused = await page.clock.pauseAt(at).then(() => true, (e) => {
      if (ahead > 100000 || !/to the past/.test(e.message)) throw e;
      return false;
    });
    if (paused) return;
  }
}

/** Plays the page for `ms` milliseconds of its own clock (see `holdClock`), then pauses. */
export async function playFor(page, ms) {
  await holdClock(page);
  await page.click('[data-action="play"]');
  await page.clock.runFor(ms);
  await page.click('[data-action="pause"]');
  await page.waitForSelector('[data-action="play"]');
}

/**
 * Moves the page's held clock (see `holdClock`) 50 ms at a time until `check()` resolves true:
 * a wait on the page's state that a busy machine cannot make overshoot. Fails after `limit` ms
 * of the page's clock.
 */
export async function runClockUntil(page, check, limit = 60000) {
  for (let played = 0; !(await check()); played += 50) {
    assert.ok(played < limit, `not there after ${played} ms of the page's clock`);
    await page.clock.runFor(50);
  }
}

/**
 * Plays the page on its own clock until `done` (a function run in the page, given `arg`)
 * holds, then pauses the run (`runClockUntil`). The clock then runs on by itself (the run is
 * paused), so the test's later waits need no care.
 */
export async function playUntil(page, done, arg, limit = 60000) {
  await holdClock(page);
  await page.click('[data-action="play"]');
  await runClockUntil(page, () => page.evaluate(done, arg), limit);
  await page.click('[data-action="pause"]');
  await page.waitForSelector('[data-action="play"]');
  await page.clock.resume();
}

/** A page function for `playUntil`: the run's clock (the time_s card) is past `s` seconds. */
export const pastSeconds = (s) => Number(document.querySelector('[data-stat="time_s"]').dataset.value) > s;

/**
 * Opens `base/?query` on the page's own clock, plays it `ms` of that clock, and returns the
 * moment paused at (ms of the run) and what the figure's picture drew then (`data-drawn`).
 */
export async function pausedPicture(page, base, query, ms) {
  await page.clock.install();
  await page.goto(`${base}/?${query}`);
  await ready(page);
  await playFor(page, ms);
  // The picture draws in the frame after the run moved, or within 250 ms when it is out of view
  // (the full page on a phone): let that pass.
  await page.clock.runFor(300);
  const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
  const drawn = JSON.parse(await page.getAttribute('[data-picture] canvas', 'data-drawn'));
  return { atMs: Math.round(seconds * 1e6) / 1000, drawn };
}

/** Presses "Skip to end" and waits until the run has reached its end. */
export async function skipToEnd(page, timeout = 30000) {
  await page.click('[data-action="skip"]');
  await untilFinished(page, timeout);
}

/** The label boxes the timeline (#timeline) drew in its latest frame, and its canvas's size. */
export async function timelineLabels(page) {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return page.$eval('#timeline canvas', (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight }));
}

/**
 * The timeline's labels after each of `steps` presses of Step: pressed in the page, each after
 * the timeline drew the one before, so the test's time goes to the page and not to `steps`
 * round trips (a playwright click waits for the button to be still and in view: 75 ms each).
 * The button is scrolled into view once, as the first press of a reader's would.
 */
export async function timelineAfterSteps(page, steps) {
  await page.locator('[data-action="step"]').scrollIntoViewIfNeeded();
  return page.evaluate(async (steps) => {
    const seen = [];
    for (let i = 1; i <= steps; i++) {
      const button = document.querySelector('[data-action="step"]');
      if (!button || button.disabled) throw new Error(`step ${i}: no Step button to press`);
      button.click();
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const c = document.querySelector('#timeline canvas');
      seen.push({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight });
    }
    return seen;
  }, steps);
}

/**
 * The timeline's labels at three moments of the run at `url`: before Play, after six steps and
 * at the end (keyed by the moment's name).
 */
export async function timelineMoments(page, url) {
  await page.goto(url);
  await ready(page);
  await page.waitForSelector('#timeline canvas[data-labels]');
  const moments = { 'before Play': await timelineLabels(page) };
  moments['after 6 steps'] = (await timelineAfterSteps(page, 6)).at(-1);
  await skipToEnd(page);
  moments['at the end'] = await timelineLabels(page);
  return moments;
}

/**
 * The command line's run of a figure's link at a moment (`run --url … --at-ms T --json`): the
 * link without what only says how the figure looks (embed, presets, controls).
 */
export function cliAt(query, atMs) {
  const params = new URLSearchParams(query);
  for (const key of ['embed', 'presets', 'controls']) params.delete(key);
  return cliRun(['run', '--url', `?${params}`, '--at-ms', String(atMs), '--json']);
}

/** The label boxes a picture ([data-picture]) drew in its latest frame, and its canvas's size. */
export async function pictureLabels(page) {
  return page.$eval('[data-picture] canvas', (c) => ({ labels: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight }));
}

/**
 * What is wrong with a canvas's labels (a timeline's, a picture's): a name of `names` not
 * drawn, a box cut by the canvas, two boxes overlapping or, on one line, closer than `apart` px
 * (the kit's timeline keeps 8: closer, "caller left, ignored" and "gives up" read as one phrase).
 */
export function timelineProblems({ labels, w, h }, names = [], apart = 0) {
  const problems = [];
  const texts = labels.map((l) => l.text);
  for (const name of names) if (!texts.includes(name)) problems.push(`the lane name ${name} is not drawn (${texts.join(' | ')})`);
  for (const l of labels) {
    if (!(l.x >= 0 && l.y >= 0 && l.x + l.w <= w + 0.01 && l.y + l.h <= h + 0.01)) {
      problems.push(`"${l.text}" at ${l.x},${l.y} (${l.w}×${l.h}) is cut by the ${w}×${h} canvas`);
    }
  }
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      const [a, b] = [labels[i], labels[j]];
      if (a.x < b.x + b.w + apart && b.x < a.x + a.w + apart && a.y < b.y + b.h && b.y < a.y + a.h) {
        problems.push(`"${a.text}" (${a.x},${a.y} ${a.w}) overlaps or is within ${apart} px of "${b.text}" (${b.x},${b.y} ${b.w})`);
      }
    }
  }
  return problems;
}

/** A verdict's words as a reader reads them: its lead, then each sentence behind "Why?". */
export async function verdictText(page, selector = '[data-verdict]') {
  return page.$eval(selector, (el) => [...el.querySelectorAll('.lead, .why p')].map((p) => p.textContent).join(' '));
}

/**
 * What the command line prints for `args` (`['run', 'cascade', '--json']` …). It runs the binary
 * `scripts/test.sh` built with the tests' profile (`fast`), building it first if it is not up to
 * date, rather than `cargo run` for every call.
 */
let cliBuilt = false;
export function cli(args) {
  if (!cliBuilt) {
    execFileSync('cargo', ['build', '--quiet', '--profile', 'fast', '--bin', 'resilience-lab'], { cwd: root, stdio: 'inherit' });
    cliBuilt = true;
  }
  return execFileSync(join(root, 'target', 'fast', 'resilience-lab'), args,
    { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The command line's answer to `args` (`resilience-lab run cascade --json` …), parsed. */
export const cliRun = (args) => JSON.parse(cli(args));

/** Text with each run of whitespace as one space, trimmed: the words a reader sees. */
export const plain = (text) => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * What a reader reads in `el` (run in the page, so it uses nothing outside itself): a verdict (the
 * kit's, with a lead) as its lead and its "Why?" paragraphs, the way a reader opens it; a row of a
 * chapter's table (`data-reading-cells`: the sentence "label\tthis run\tthe chapter's") as its
 * cells in order; anything else as its text.
 */
export function readIn(el) {
  if (el.dataset.readingCells !== undefined) return [...el.children].map((c) => c.textContent).join(' ');
  return el.querySelector('.lead')
    ? [...el.querySelectorAll('.lead, .why p')].map((p) => p.textContent).join(' ')
    : el.textContent;
}

/** `readIn` where a page function gets it as its source (a page function cannot close over it). */
const readInSource = readIn.toString();

/** The sentences of `keys` (one key of `reading`, or several in the order shown, space-separated). */
export const said = (reading, keys) => keys.split(' ').map((k) => reading[k] ?? '').join(' ');

/** What the element at `sel` shows: `{ text, keys }`, `keys` its sentences' keys in the reading
 *  (`data-reading`, `data-reading-cells`), or null. */
export const readingOf = (page, sel) => page.$eval(sel, (el, src) => ({
  text: new Function(`return ${src}`)()(el),
  keys: el.dataset.reading ?? el.dataset.readingCells ?? null,
}), readInSource);

/**
 * Asserts the element at `sel` reads `want` word for word (a sentence of the core's reading),
 * after waiting up to 5 s for the page to say it: the words follow the run's clock, or a change,
 * within a frame or two.
 */
export async function says(page, sel, want, what = sel) {
  await page.waitForFunction(([sel, want, src]) => {
    const el = document.querySelector(sel);
    return el !== null && new Function(`return ${src}`)()(el).replace(/\s+/g, ' ').trim() === want;
  }, [sel, plain(want), readInSource], { timeout: 5000 }).catch(() => {});
  assert.equal(plain((await readingOf(page, sel)).text), plain(want), what);
}

/** Asserts the keyed element at `sel` says, word for word, the core's `run.reading` of its keys. */
export async function saysReading(page, run, sel) {
  const { keys } = await readingOf(page, sel);
  assert.ok(keys && plain(said(run.reading, keys)), `${sel}: the core's reading has its sentences (${keys})`);
  await says(page, sel, said(run.reading, keys), `${keys}: the page says what the core says`);
}

/**
 * The core's run of what the page shows: `run --url` with the page's link to its state (its
 * "Link to this state", which follows every change at once; the address bar follows a moment
 * later), else its address, to the end, or with `paused`, to the moment its clock shows (`--at-ms`).
 * Its `reading` holds the sentences the page must show word for word, its `facts` and metrics
 * the values to check by value.
 */
export async function coreRun(page, { paused = false } = {}) {
  const link = await page.$eval('[data-state-link], .share a', (a) => a.getAttribute('href')).catch(() => null);
  const args = ['run', '--url', link ?? new URL(page.url()).search, '--json'];
  if (paused) {
    const seconds = Number(await page.getAttribute('.play-controls .clock', 'data-value'));
    args.push('--at-ms', (Math.round(seconds * 1e6) / 1000).toString());
  }
  return cliRun(args);
}
