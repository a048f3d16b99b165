// Inlined into index.html by scripts/site.mjs, which puts each simulation's module in `modules`:
// { "<id>": ["<id>/<glue>.js", "<id>/<module>_bg.wasm"] }, paths relative to the page
// so the site works from any sub-path. `?sim=<id>` starts that module's download at once (before
// the style sheet) and nothing else's; without `sim`, the page is the home page and loads none.
(() => {
  const modules = __MODULES__;
  const query = new URLSearchParams(location.search);
  // The last value wins, as in the module's own URL decoding (src/url.rs).
  const last = (key) => query.getAll(key).pop();
  const sim = last('sim');
  const onLoad = (f) => document.addEventListener('DOMContentLoaded', f, { once: true });
  if (sim === undefined) return;
  if (!Object.hasOwn(modules, sim)) {
    onLoad(() => unknownSimulation(sim, Object.keys(modules)));
    return;
  }
  // The same rule as src/url.rs: `embed`, `embed=1`, `true`, `yes` or `on`.
  const embed = ['', '1', 'true', 'yes', 'on'].includes(last('embed')?.trim());
  document.documentElement.dataset.view = embed ? 'embed' : 'sim';
  // A panic in the module aborts at once (scripts/setup.sh, web_env): the wasm traps, and the
  // trap reaches whatever called into the module. The banner then says the simulation stopped
  // and offers a reset: the same simulation with nothing but its id.
  let stopped = false;
  const onTrap = (error) => {
    if (stopped || !(error instanceof WebAssembly.RuntimeError)) return;
    stopped = true;
    const banner = document.createElement('div');
    banner.className = 'error-banner';
    banner.setAttribute('role', 'alert');
    banner.setAttribute('data-error-banner', '');
    const text = document.createElement('span');
    text.textContent = 'Something went wrong in the simulation, and it stopped.';
    const reset = document.createElement('a');
    reset.href = `${location.pathname}?sim=${encodeURIComponent(sim)}`;
    reset.setAttribute('data-action', 'reset-after-error');
    reset.textContent = 'Reset the simulation';
    banner.append(text, reset);
    document.body.prepend(banner);
  };
  addEventListener('error', (event) => onTrap(event.error));
  addEventListener('unhandledrejection', (event) => onTrap(event.reason));
  const [glue, wasm] = modules[sim];
  const bytes = fetch(wasm);
  const code = import(`./${glue}`);
  const parsed = new Promise(onLoad);
  let footer;
  parsed.then(() => {
    document.querySelector('[data-home]').remove();
    footer = document.querySelector('.app-footer');
    if (embed) {
      document.querySelector('.app-header').remove();
      footer.remove();
    }
    const loading = document.createElement('p');
    loading.id = 'loading';
    loading.className = 'loading';
    loading.textContent = 'Loading simulation…';
    document.body.append(loading);
  });
  Promise.all([code, parsed])
    .then(([module]) => module.default({ module_or_path: bytes }))
    // The module appended its page to the body: the footer goes back below it.
    .then(() => { if (!embed) document.body.append(footer); })
    .catch((error) => {
      const loading = document.getElementById('loading');
      if (error instanceof WebAssembly.RuntimeError) {
        loading?.remove();
        onTrap(error);
      } else if (loading) {
        loading.textContent = 'The simulation could not be loaded. Reload the page to try again.';
      }
      throw error;
    });

  // The home page, with the notice the module would give (src/url.rs): the id, shortened.
  function unknownSimulation(id, known) {
    const clean = [...id].filter((c) => c >= ' ' && !(c >= '\x7f' && c <= '\x9f'));
    const shown = clean.slice(0, 40).join('') + ([...id].length > 40 ? '…' : '');
    const notice = document.createElement('div');
    notice.className = 'notices';
    notice.setAttribute('role', 'status');
    notice.setAttribute('data-notices', '');
    const title = document.createElement('strong');
    title.textContent = "Some of this link's settings were not used:";
    const list = document.createElement('ul');
    const item = document.createElement('li');
    item.textContent = `Unknown simulation '${shown}'; showing the list instead. Known: ${known.join(', ')}.`;
    list.append(item);
    notice.append(title, list);
    document.querySelector('[data-home]').prepend(notice);
  }
})();
