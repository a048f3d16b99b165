// Assembles dist/ from one Trunk build per simulation (scripts/setup.sh, build_web):
//
//     node scripts/site.mjs <stage> <dist> <list.json>
//
// <stage>/<id>/ is Trunk's output for the module of simulation <id>; <list.json> is
// `resilience-lab list --json` (the registry's declarations). dist/ gets each module's JS glue and
// wasm in dist/<id>/, the style sheet, icon and embed.js once, and index.html: the home page (every
// simulation and its presets, as static HTML) with the loader that fetches only the module the
// URL's `sim` names. Paths are relative, so dist/ works at / or under any sub-path.
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
  // Every module's build made the same style sheet, icon and embed.js: the first one's are used.
  const first = join(stage, scenarios[0].id);
  const style = await only(first, /^style-[0-9a-f]+\.css$/);
  const icon = await only(first, /^favicon-[0-9a-f]+\.svg$/);
  for (const name of [style, icon, 'embed.js']) await copyFile(join(first, name), join(dist, name));

  // Its comments stay in the source: the page gets the code.
  const loader = (await readFile(join(root, 'static', 'loader.js'), 'utf8'))
    .split('\n').filter((line) => !/^\s*\/\//.test(line)).join('\n')
    .replace('__MODULES__', JSON.stringify(modules));
  const fill = {
    loader: `\n${loader}`,
    style: `./${style}`,
    icon: `./${icon}`,
    nav: scenarios.map((s) => `<a href="?sim=${escape(s.id)}">${escape(s.title)}</a>`).join(''),
    cards: scenarios.map(card).join(''),
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
