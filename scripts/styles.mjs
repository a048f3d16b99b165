// The site's style sheets, assembled from the repository's .css files: one per simulation (its
// page's rules after the site's and the kit's), the home page's, and for the development server
// one with every page's rules (README, "Developing"). Used by scripts/site.mjs, and by Trunk's
// post-build hook (Trunk.toml) as
//
//     node scripts/styles.mjs --dev
//
// which writes that sheet as style.css into the build Trunk is staging ($TRUNK_STAGING_DIR).
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The `.css` files under `dir` (relative to the repository), sorted by path. */
async function cssUnder(dir) {
  const names = await readdir(join(root, dir), { recursive: true });
  return names.filter((n) => n.endsWith('.css')).sort().map((n) => `${dir}/${n}`);
}

/** `text`'s file name: `<stem>-<hash of text>.<ext>`, so a changed file never meets a stale cache. */
export const hashed = (stem, ext, text) => `${stem}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.${ext}`;

/**
 * `css` without its comments, indentation and blank lines: 2 KB less per page gzipped (a third
 * of the sheet). Safe for our sheets, whose strings hold no comment marks
 * (tests/browser/style.test.mjs checks that the browser keeps every rule).
 */
const compact = (css) => css.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((l) => l.trim()).filter(Boolean).join('\n');

/** The site's rules, then the kit's: the start of every simulation's sheet. */
const sharedFiles = async () => ['static/style.css', ...await cssUnder('src/ui/kit')];

/** The style sheet made of `files` (paths relative to the repository), in that order. */
async function styleSheet(files) {
  // Each file's name stays as a comment: the tests read which pages' rules a sheet carries.
  const parts = await Promise.all(files.map(async (f) => `/* ${f} */\n${compact(await readFile(join(root, f), 'utf8'))}`));
  const css = parts.join('\n');
  return { css, name: hashed('style', 'css', css) };
}

/**
 * The style sheets: the home page's is the site's rules alone (static/style.css); a simulation's
 * is the site's, then the kit's (every .css under src/ui/kit), then its own page's (every .css
 * in src/ui/pages/<id with underscores>/), in that order so a page's rule wins a tie with the
 * kit's. Found by name: a new page's style.css is picked up without a list; one in a folder that
 * is no simulation's is an error, not a rule left out.
 */
export async function styleSheets(ids) {
  const shared = await sharedFiles();
  const pages = await cssUnder('src/ui/pages');
  const folder = (id) => `src/ui/pages/${id.replaceAll('-', '_')}/`;
  const stray = pages.filter((f) => !ids.some((id) => f.startsWith(folder(id))));
  if (stray.length) throw new Error(`${stray.join(', ')}: in no simulation's page folder`);
  const sheets = { home: await styleSheet(['static/style.css']) };
  for (const id of ids) sheets[id] = await styleSheet([...shared, ...pages.filter((f) => f.startsWith(folder(id)))]);
  return sheets;
}

/** Every simulation's rules in one sheet: the development page shows any simulation. */
export async function everyPageSheet() {
  return styleSheet([...await sharedFiles(), ...await cssUnder('src/ui/pages')]);
}

if (process.argv[2] === '--dev') {
  const staging = process.env.TRUNK_STAGING_DIR;
  if (!staging) throw new Error('styles.mjs --dev runs as a Trunk hook: TRUNK_STAGING_DIR is not set');
  await writeFile(join(staging, 'style.css'), (await everyPageSheet()).css);
}
