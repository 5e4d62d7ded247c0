// The page's first script: small and run at once, so that the session exchange and the first
// requests travel while the browser is still loading the main script. It defines nothing but
// window.docforgeBoot, which main.js reads.
(function () {
  'use strict';
  const params = new URLSearchParams(location.search);
  // The token is in the fragment, which the browser never sends. The page keeps it in this
  // origin's sessionStorage (per port, unlike cookies, which browsers send to every port of
  // 127.0.0.1), removes it from the address bar and history, and sends it in a header on
  // every request. A reload finds it in sessionStorage.
  const key = 'docforge-viewer-token';
  const fromURL = /(?:^|&)token=([0-9a-f]+)/.exec(location.hash.slice(1));
  if (fromURL) {
    sessionStorage.setItem(key, fromURL[1]);
    history.replaceState(null, '', location.pathname + location.search);
  }
  const token = sessionStorage.getItem(key);
  const headers = token ? { Accept: 'application/json', Authorization: 'Bearer ' + token } : { Accept: 'application/json' };
  const session = fetch('/api/session', { headers, credentials: 'omit' }).then((resp) => {
    if (!resp.ok) throw new Error('The viewer refused this token. Open the exact URL docforge_visualize (or docforge view) printed.');
  });
  // get fetches one API URL and reads its JSON as soon as it arrives, while the main script may
  // still be loading; main.js interprets the status.
  const get = (url) => session
    .then(() => fetch(url, { headers, credentials: 'omit' }))
    .then((resp) => resp.json().catch(() => ({})).then((body) => ({ status: resp.status, ok: resp.ok, statusText: resp.statusText, body })));
  // viewURL is the endpoint of one view of a node (Logic needs its kind checked first).
  function viewURL(view, id, depth) {
    const q = 'id=' + encodeURIComponent(id);
    if (view === 'nodes') return '/api/neighborhood?' + q + '&depth=' + (depth || 1);
    if (view === 'flow' || view === 'web') return '/api/' + view + '?' + q;
    return '/api/logic?' + q;
  }
  const view = ['nodes', 'flow', 'web', 'logic'].includes(params.get('view')) ? params.get('view') : 'nodes';
  const focus = params.get('focus');
  const depth = Number(params.get('depth')) || 1;
  const first = focus && view !== 'logic' ? get(viewURL(view, focus, depth)) : null;
  if (first) first.catch(() => {}); // main.js reports it
  session.catch(() => {});
  window.docforgeBoot = Object.freeze({ session, overview: get('/api/overview'), view, focus, depth, first, viewURL, get });
})();
