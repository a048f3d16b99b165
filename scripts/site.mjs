// Assembles dist/ from one Trunk build per simulation (scripts/setup.sh, build_web):
//
//     node scripts/site.mjs <stage> <dist> <list.json>
//
// <stage>/<id>/ is Trunk's output for the module of simulation <id>; <list.json> is
// `resilience-lab list --json` (the registry's declarations). dist/ gets each module's JS glue and
// wasm in dist/<id>/, the icon and embed.js once, the style sheet (assembled here, see styleSheet),
// home-<hash>.html (every simulation and its presets, as static HTML, which the home page fetches),
// and index.html: the home page with the loader that fetches only the module the URL's `sim`
// names. Paths are relative, so dist/ works at / or under any sub-path. dist/ is made anew each
// time, so nothing of an earlier build survives.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The one file in `dir` whose name matches `pattern` (Trunk hashes the names). */
async function only(dir, pattern) {
  const names = (await readdir(dir)).filter((n) => pattern.test(n));
  if (names.length !== 1) throw new Error(`${dir}: expected one file matching ${pattern}, found ${names.join(', ') || 'none'}`);
  return names[0];
}

/** The `.css` files under `dir` (relative to the repository), sorted by path. */
async function cssUnder(dir) {
  const names = await readdir(join(root, dir), { recursive: true });
  return names.filter((n) => n.endsWith('.css')).sort().map((n) => `${dir}/${n}`);
}

/**
 * The one style sheet: the site's rules (static/style.css), then the kit's (every .css under
 * src/ui/kit), then each page's (every .css under src/ui/pages, a page's in its own folder), in
 * that order so a page's rule wins a tie with the kit's. Found by name: a new page's style.css
 * is picked up without a list.
 */
async function styleSheet() {
  const files = ['static/style.css', ...await cssUnder('src/ui/kit'), ...await cssUnder('src/ui/pages')];
  const parts = await Promise.all(files.map(async (f) => `/* ${f} */\n${await readFile(join(root, f), 'utf8')}`));
  const css = parts.join('\n');
  return { css, name: `style-${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css` };
}

function card(s) {
  const presets = s.presets.map((p) => `<li><a class="button" href="?sim=${escape(s.id)}&amp;preset=${escape(p.id)}" title="${escape(p.description)}">${escape(p.label)}</a></li>`);
  return `<li class="card" data-scenario="${escape(s.id)}"><h2><a href="?sim=${escape(s.id)}">${escape(s.title)}</a></h2>`
    + `<p class="chapter">${escape(s.chapter)}</p><p>${escape(s.summary)}</p><ul class="presets">${presets.join('')}</ul></li>`;
}

async function main([stage, dist, listFile]) {
  if (!stage || !dist || !listFile) throw new Error('usage: node scripts/site.mjs <stage> <dist> <list.json>');
  const scenarios = JSON.parse(await readFile(listFile, 'utf8'));
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  const modules = {};
  for (const { id } of scenarios) {
    const from = join(stage, id);
    const glue = await only(from, /^resilience-lab-web-[0-9a-f]+\.js$/);
    const wasm = await only(from, /^resilience-lab-web-[0-9a-f]+_bg\.wasm$/);
    await mkdir(join(dist, id));
    for (const name of [glue, wasm]) await copyFile(join(from, name), join(dist, id, name));
    modules[id] = [`${id}/${glue}`, `${id}/${wasm}`];
  }
  // Every module's build made the same icon and embed.js: the first one's are used.
  const first = join(stage, scenarios[0].id);
  const icon = await only(first, /^favicon-[0-9a-f]+\.svg$/);
  for (const name of [icon, 'embed.js']) await copyFile(join(first, name), join(dist, name));
  const style = await styleSheet();
  await writeFile(join(dist, style.name), style.css);
  // The home page's cards, a fragment the loader fetches for the home page only (static/loader.js).
  const cards = scenarios.map(card).join('');
  const home = `home-${createHash('sha256').update(cards).digest('hex').slice(0, 16)}.html`;
  await writeFile(join(dist, home), cards);

  // Its comments stay in the source: the page gets the code.
  const loader = (await readFile(join(root, 'static', 'loader.js'), 'utf8'))
    .split('\n').filter((line) => !/^\s*\/\//.test(line)).join('\n')
    .replace('__MODULES__', JSON.stringify(modules))
    .replace('__HOME__', JSON.stringify(`./${home}`));
  const fill = {
    loader: `\n${loader}`,
    style: `./${style.name}`,
    icon: `./${icon}`,
    nav: scenarios.map((s) => `<a href="?sim=${escape(s.id)}">${escape(s.title)}</a>`).join(''),
  };
  const template = await readFile(join(root, 'index.html'), 'utf8');
  const page = template.replace(/\{\{(\w+)\}\}/g, (_, key) => {
    if (!(key in fill)) throw new Error(`index.html: unknown placeholder {{${key}}}`);
    return fill[key];
  });
  await writeFile(join(dist, 'index.html'), page);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(`site.mjs: ${e.message}`);
  process.exit(1);
});
