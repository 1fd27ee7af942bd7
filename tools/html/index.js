// retail batch index (docs/html-page.md): one row per file, sortable by any column (click its
// heading), filterable to the files that need a look. The rows come from #retail-data; every
// text from a file goes in as text, never as markup.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('retail-data').textContent);
  const rows = data.rows;
  const state = { key: 'path', dir: 1, look: false };
  const $ = (id) => document.getElementById(id);
  const pct = (x) => (typeof x === 'number' ? `${x.toFixed(2)}%` : '—');

  function cell(text, cls) {
    const td = document.createElement('td');
    if (cls) td.className = cls;
    td.textContent = text;
    return td;
  }

  function sortValue(r, key) {
    if (key === 'warnings') return r.warnings.length;
    const v = r[key];
    return v === undefined || v === null ? -Infinity : v;
  }

  function rowElement(r) {
    const tr = document.createElement('tr');
    tr.dataset.path = r.path;
    tr.dataset.look = String(r.needs_look);
    if (r.needs_look) tr.className = 'look';
    const name = document.createElement('td');
    if (r.page) {
      const a = document.createElement('a');
      a.href = r.href; // percent-encoded bytes: also names that are not UTF-8
      a.textContent = r.path;
      name.append(a);
    } else name.textContent = r.path;
    tr.append(name, cell(r.status + (r.error ? `: ${r.error}` : ''), r.status === 'failed' ? 'torn' : ''),
      cell(r.found || '—'), cell(r.worst_clip ?? '—'), cell(pct(r.torn_before), 'num'),
      cell(pct(r.torn_after), r.worse ? 'num torn' : 'num'),
      cell(r.warnings.length ? r.warnings.join('\n') : '—'), cell((r.ms / 1000).toFixed(2), 'num'));
    return tr;
  }

  function show() {
    const shown = rows.filter((r) => !state.look || r.needs_look).slice().sort((a, b) => {
      const x = sortValue(a, state.key), y = sortValue(b, state.key);
      if (x < y) return -state.dir;
      if (x > y) return state.dir;
      return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
    });
    $('rows').replaceChildren(...shown.map(rowElement));
    $('count').textContent = `${shown.length} of ${rows.length} files`;
    for (const th of document.querySelectorAll('#files th')) {
      th.setAttribute('aria-sort', th.dataset.key === state.key
        ? (state.dir > 0 ? 'ascending' : 'descending') : 'none');
    }
  }

  for (const th of document.querySelectorAll('#files th')) {
    th.addEventListener('click', () => {
      state.dir = state.key === th.dataset.key ? -state.dir : 1;
      state.key = th.dataset.key;
      show();
    });
  }
  $('look').addEventListener('change', (e) => { state.look = e.target.checked; show(); });
  const look = rows.filter((r) => r.needs_look).length;
  $('subtitle').textContent = `${rows.length} files · ${look} need a look`;
  show();
})();
