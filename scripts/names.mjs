// Short names for what a module and its JS glue call each other (scripts/site.mjs).
//
// wasm-bindgen names each import and export the glue and the module share after the Rust item and
// a 16-digit hash (`__wbg_appendChild_dbf7ad2f48413560`, closure shims of 300 characters), and
// both files carry every name: retry-storm's 180 were 6 KB of its minified glue and 11 KB of its
// module, with digits gzip cannot shrink. Each such name becomes `$` and a number in base 36, in
// the module and, as a whole word, in the glue; the import module's name
// (`./resilience-lab-web_bg.js`, once per import) becomes `w`: 5.0–5.8 KB gzipped less a page.
// Names without a hash (`memory`, `main`, `__wbindgen_start`, …) stay as they are. The custom
// sections go too (`producers`, `target_features`, Leptos's `__wasm_split_unstable`): the
// browser reads none of them (0.2 KB).

const IMPORTS = 2;
const EXPORTS = 7;
const CUSTOM = 0;
const MODULE = './resilience-lab-web_bg.js';
const SHORT_MODULE = 'w';

/** The unsigned LEB128 at `at` in `bytes`: [value, offset after it]. */
function leb(bytes, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [value, at];
  }
}

function uleb(value) {
  const out = [];
  do {
    const b = value % 128;
    value = Math.floor(value / 128);
    out.push(value ? b | 0x80 : b);
  } while (value);
  return Buffer.from(out);
}

const text = (s) => Buffer.concat([uleb(Buffer.byteLength(s)), Buffer.from(s)]);

/** Reads a name at `at`: [string, offset after it]. */
function name(bytes, at) {
  const [length, start] = leb(bytes, at);
  return [bytes.subarray(start, start + length).toString('utf8'), start + length];
}

/** The offset after an import's description (its kind byte at `at`): function, table, memory or global. */
function importEnd(bytes, at) {
  const kind = bytes[at++];
  const limits = (p) => {
    const [flags, q] = leb(bytes, p);
    let [, r] = leb(bytes, q);
    if (flags & 1) [, r] = leb(bytes, r);
    return r;
  };
  if (kind === 0) return leb(bytes, at)[1];
  if (kind === 1) return limits(at + 1);
  if (kind === 2) return limits(at);
  if (kind === 3) return at + 2;
  throw new Error(`import of unknown kind ${kind}`);
}

/**
 * `wasm` (a Buffer) and `glue` (wasm-bindgen's JS) with the shared names shortened and the
 * custom sections dropped. Throws if the glue does not name the import module as expected, so
 * a new wasm-bindgen that writes it otherwise stops the build instead of breaking the page.
 */
export function shortNames(wasm, glue) {
  if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error('not a wasm module');
  const renamed = new Map();
  const imported = new Set();
  const rename = (long) => {
    if (!/[0-9a-f]{16}/.test(long)) return long;
    if (!renamed.has(long)) renamed.set(long, `$${renamed.size.toString(36)}`);
    return renamed.get(long);
  };
  const sections = [wasm.subarray(0, 8)];
  for (let at = 8; at < wasm.length;) {
    const id = wasm[at];
    const [size, start] = leb(wasm, at + 1);
    const body = wasm.subarray(start, start + size);
    at = start + size;
    if (id === CUSTOM) continue;
    if (id !== IMPORTS && id !== EXPORTS) {
      sections.push(Buffer.from([id]), uleb(size), body);
      continue;
    }
    let [count, p] = leb(body, 0);
    const parts = [uleb(count)];
    while (count--) {
      if (id === IMPORTS) {
        const [module, q] = name(body, p);
        if (module !== MODULE) throw new Error(`import from ${module}, not ${MODULE}`);
        const [field, r] = name(body, q);
        const end = importEnd(body, r);
        imported.add(field);
        parts.push(text(SHORT_MODULE), text(rename(field)), body.subarray(r, end));
        p = end;
      } else {
        const [field, q] = name(body, p);
        const end = leb(body, q + 1)[1]; // the kind byte, then the index
        parts.push(text(rename(field)), body.subarray(q, end));
        p = end;
      }
    }
    const rewritten = Buffer.concat(parts);
    sections.push(Buffer.from([id]), uleb(rewritten.length), rewritten);
  }
  const quoted = JSON.stringify(MODULE);
  if (glue.split(quoted).length !== 2) throw new Error(`the glue names ${quoted} other than once`);
  let js = glue.replace(quoted, JSON.stringify(SHORT_MODULE));
  for (const [long, short] of renamed) {
    const word = new RegExp(`(?<![\\w$])${long.replace(/[^\w]/g, '\\$&')}(?![\\w$])`, 'g');
    const before = js;
    js = js.replace(word, () => short);
    // An import the glue does not give would fail the module's instantiation: stop here instead.
    if (js === before && imported.has(long)) throw new Error(`the glue never names the import ${long}`);
  }
  return { wasm: Buffer.concat(sections), glue: js };
}
