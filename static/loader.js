// Inlined into index.html by scripts/site.mjs, which puts each simulation's module in `modules`
// by its hashes: { "<id>": ["<module's hash>", "<style sheet's hash>"] }, for the files
// <id>/resilience-lab-web-<hash>.js and _bg.wasm and <id>/style-<hash>.css, paths relative to the
// page so the site works from any sub-path. `?sim=<id>` starts that module's
// download at once (before its style sheet) and nothing else's; without `sim`, the page is the
// home page and loads none, only the home page's list of simulations and their presets and its
// style sheet (`home`: a fragment of HTML and the site's rules alone, which a simulation's page
// does not download).
(() => {
  const modules = __MODULES__;
  const [homeList, homeStyle] = __HOME__;
  // Keys as the module's own URL decoding reads them (src/url.rs): a link whose `&` a chapter's
  // Markdown escaped twice has `amp;` before its keys. The last value wins.
  const query = [...new URLSearchParams(location.search)].map(([k, v]) => [k.replace(/^(amp;)+/, ''), v]);
  const last = (key) => query.filter(([k]) => k === key).pop()?.[1];
  // `theme=light|dark` forces the colour scheme (style.css reads data-theme), set before the
  // page is drawn so it never shows in the other one first; the module gives any notice.
  const theme = last('theme')?.trim();
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
  const sim = last('sim');
  const onLoad = (f) => document.addEventListener('DOMContentLoaded', f, { once: true });
  // An element with its attributes, then its text or children.
  const element = (tag, attrs, ...content) => {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
    el.append(...content);
    return el;
  };
  // Written into the page while it is parsed, so the sheet blocks rendering as a <link> in the
  // HTML does (one added with append() would not, and the page would show unstyled first).
  const useStyle = (href) => document.write(`<link rel="stylesheet" href="${href}" />`);
  if (sim === undefined || !Object.hasOwn(modules, sim)) {
    useStyle(homeStyle);
    showHome();
    if (sim !== undefined) onLoad(() => unknownSimulation(sim, Object.keys(modules)));
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
    const reset = `${location.pathname}?sim=${encodeURIComponent(sim)}`;
    document.body.prepend(element('div', { class: 'error-banner', role: 'alert', 'data-error-banner': '' },
      element('span', {}, 'Something went wrong in the simulation, and it stopped.'),
      element('a', { href: reset, 'data-action': 'reset-after-error' }, 'Reset the simulation')));
  };
  addEventListener('error', (event) => onTrap(event.error));
  addEventListener('unhandledrejection', (event) => onTrap(event.reason));
  const [hash, styleHash] = modules[sim];
  const [glue, wasm, style] = [`${sim}/resilience-lab-web-${hash}.js`, `${sim}/resilience-lab-web-${hash}_bg.wasm`, `${sim}/style-${styleHash}.css`];
  const bytes = fetch(wasm);
  const code = import(`./${glue}`);
  useStyle(style);
  const parsed = new Promise(onLoad);
  let footer;
  parsed.then(() => {
    document.querySelector('[data-home]').remove();
    footer = document.querySelector('.app-footer');
    if (embed) {
      document.querySelector('.app-header').remove();
      footer.remove();
    }
    document.body.append(element('p', { id: 'loading', class: 'loading' }, 'Loading simulation…'));
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

  // The list's download starts at once, beside the style sheet's; it fills the home page's empty
  // list when both are there. If it fails, the header's links still name every simulation.
  function showHome() {
    const list = fetch(homeList).then((response) => {
      if (!response.ok) throw new Error(`${homeList}: HTTP ${response.status}`);
      return response.text();
    });
    Promise.all([list, new Promise(onLoad)]).then(([html]) => {
      const cards = document.querySelector('[data-cards]');
      cards.innerHTML = html;
      cards.removeAttribute('aria-busy');
    }, () => {
      document.querySelector('[data-cards]').replaceWith(element('p', { class: 'help', 'data-cards-failed': '' },
        'The list of simulations could not be loaded; the links above open each one.'));
    });
  }

  // The home page, with the notice the module would give (src/url.rs): the id, shortened.
  function unknownSimulation(id, known) {
    const clean = [...id].filter((c) => c >= ' ' && !(c >= '\x7f' && c <= '\x9f'));
    const shown = clean.slice(0, 40).join('') + ([...id].length > 40 ? '…' : '');
    const item = `Unknown simulation '${shown}'; showing the list instead. Known: ${known.join(', ')}.`;
    document.querySelector('[data-home]').prepend(element('div', { class: 'notices', role: 'status', 'data-notices': '' },
      element('strong', {}, "Some of this link's settings were not used:"),
      element('ul', {}, element('li', {}, item))));
  }
})();
