// Assembles dist/ from one Trunk build per simulation (scripts/setup.sh, build_web):
//
//     node scripts/site.mjs <stage> <dist> <list.json>
//
// <stage>/<id>/ is Trunk's output for the module of simulation <id>; <list.json> is
// `resilience-lab list --json` (the registry's declarations). dist/ gets each module's JS glue,
// wasm and style sheet in dist/<id>/ (the sheets are assembled by scripts/styles.mjs), the icon
// and embed.js once, the home page's style sheet and its list (home-<hash>.html: every simulation
// and its presets, as static HTML, which the home page fetches), and index.html: the home page
// with the loader that fetches only the module and style sheet of the simulation the URL's `sim`
// names, its footer naming the lab's version, and (with LAB_PUBLIC_URL set) the public address
// embed snippets point at; and beside every file its .gz and .br. Paths are relative, so dist/
// works at / or under any sub-path. dist/ is made anew each
// time, so nothing of an earlier build survives.
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';
import { hashed, styleSheets } from './styles.mjs';
import { shortNames } from './names.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The one file in `dir` whose name matches `pattern` (Trunk hashes the names). */
async function only(dir, pattern) {
  const names = (await readdir(dir)).filter((n) => pattern.test(n));
  if (names.length !== 1) throw new Error(`${dir}: expected one file matching ${pattern}, found ${names.join(', ') || 'none'}`);
  return names[0];
}

/**
 * wasm-bindgen's JS glue, minified by terser: 1.8 KB less per page gzipped (8.3 -> 6.5 KB).
 * Trunk's own minifier (minify-js) fails to parse the glue's `export default`.
 */
async function minified(js, module = true) {
  const { code } = await minify(js, { module, compress: true, mangle: true });
  return code;
}

/** The lab's version, Cargo.toml's, which the CLI (`--version`) and the module (`data-version`) carry. */
async function version() {
  const manifest = await readFile(join(root, 'Cargo.toml'), 'utf8');
  const found = manifest.match(/^\[package\][^[]*?^version\s*=\s*"([^"]+)"/m);
  if (!found) throw new Error('Cargo.toml: no [package] version');
  return found[1];
}

/**
 * Beside each file of `dir`, `<file>.gz` (gzip -9) and `<file>.br` (brotli at its best quality,
 * its text mode but for the wasm), for a host that sends a precompressed file to a browser that
 * accepts it (nginx's gzip_static and brotli_static; README, "Hosting"). A page is about a third
 * of its bytes that way.
 */
async function precompress(dir) {
  const files = (await readdir(dir, { recursive: true })).filter((n) => /\.(html|js|wasm|css|svg)$/.test(n));
  await Promise.all(files.map(async (name) => {
    const body = await readFile(join(dir, name));
    const mode = name.endsWith('.wasm') ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT;
    const params = { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_MODE]: mode, [constants.BROTLI_PARAM_SIZE_HINT]: body.length };
    await writeFile(join(dir, `${name}.gz`), await promisify(gzip)(body, { level: 9 }));
    await writeFile(join(dir, `${name}.br`), await promisify(brotliCompress)(body, { params }));
  }));
}

/**
 * The public address of the lab's folder, from the build setting LAB_PUBLIC_URL (for example
 * https://example.org/lab/v0.1.0/), as the meta tag "Copy embed snippet" reads; none when unset,
 * and the snippet names the address the page was opened at.
 */
function publicUrl(value) {
  if (!value) return '';
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw new Error(`LAB_PUBLIC_URL: '${value}' is not the http(s) address of the lab's folder`);
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return `<meta name="lab-public-url" content="${escape(url.href)}" />`;
}

function card(s) {
  const presets = s.presets.map((p) => `<li><a class="button" href="?sim=${escape(s.id)}&amp;preset=${escape(p.id)}" title="${escape(p.description)}">${escape(p.label)}</a></li>`);
  return `<li class="card" data-scenario="${escape(s.id)}"><h2><a href="?sim=${escape(s.id)}">${escape(s.title)}</a></h2>`
    + `<p class="chapter">${escape(s.chapter)}</p><p>${escape(s.summary)}</p><ul class="presets">${presets.join('')}</ul></li>`;
}

async function main([stage, dist, listFile]) {
  if (!stage || !dist || !listFile) throw new Error('usage: node scripts/site.mjs <stage> <dist> <list.json>');
  const publicMeta = publicUrl(process.env.LAB_PUBLIC_URL); // a wrong address stops the build first
  const scenarios = JSON.parse(await readFile(listFile, 'utf8'));
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  const modules = {};
  const sheets = await styleSheets(scenarios.map((s) => s.id));
  for (const { id } of scenarios) {
    const from = join(stage, id);
    const glue = await only(from, /^resilience-lab-web-[0-9a-f]+\.js$/);
    const wasm = await only(from, /^resilience-lab-web-[0-9a-f]+_bg\.wasm$/);
    await mkdir(join(dist, id));
    // The names the module and its glue share, shortened in both (scripts/names.mjs).
    const short = shortNames(await readFile(join(from, wasm)), await readFile(join(from, glue), 'utf8'));
    await writeFile(join(dist, id, wasm), short.wasm);
    await writeFile(join(dist, id, glue), await minified(short.glue));
    await writeFile(join(dist, id, sheets[id].name), sheets[id].css);
    // The loader needs only the hashes: the module's (its glue's and its wasm's) and the style sheet's.
    const hash = /-([0-9a-f]+)\.js$/.exec(glue)[1];
    if (wasm !== `resilience-lab-web-${hash}_bg.wasm`) throw new Error(`${id}: ${glue} and ${wasm} differ in their hash`);
    modules[id] = [hash, /^style-([0-9a-f]+)\.css$/.exec(sheets[id].name)[1]];
  }
  // Every module's build made the same icon and embed.js: the first one's are used.
  const first = join(stage, scenarios[0].id);
  const icon = await only(first, /^favicon-[0-9a-f]+\.svg$/);
  for (const name of [icon, 'embed.js']) await copyFile(join(first, name), join(dist, name));
  await writeFile(join(dist, sheets.home.name), sheets.home.css);
  // The home page's cards, a fragment the loader fetches for the home page only (static/loader.js).
  const cards = scenarios.map(card).join('');
  const home = hashed('home', 'html', cards);
  await writeFile(join(dist, home), cards);

  // Minified as the glue is (a classic script, not a module): 0.9 KB less per page gzipped.
  const loader = await minified((await readFile(join(root, 'static', 'loader.js'), 'utf8'))
    .replace('__MODULES__', JSON.stringify(modules))
    .replace('__HOME__', JSON.stringify([`./${home}`, `./${sheets.home.name}`])), false);
  const fill = {
    version: escape(await version()),
    public_url: publicMeta,
    loader: `\n${loader}`,
    style: `./${sheets.home.name}`,
    icon: `./${icon}`,
    nav: scenarios.map((s) => `<a href="?sim=${escape(s.id)}">${escape(s.title)}</a>`).join(''),
  };
  // As with the loader, the template's comments stay in the source.
  const template = (await readFile(join(root, 'index.html'), 'utf8')).replace(/\s*<!--[\s\S]*?-->/g, '');
  const page = template.replace(/\{\{(\w+)\}\}/g, (_, key) => {
    if (!(key in fill)) throw new Error(`index.html: unknown placeholder {{${key}}}`);
    return fill[key];
  });
  await writeFile(join(dist, 'index.html'), page);
  await precompress(dist);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(`site.mjs: ${e.message}`);
  process.exit(1);
});
