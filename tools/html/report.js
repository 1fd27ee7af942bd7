// retail QA page: the report beside the rigs (docs/html-page.md), from the run's report JSON
// embedded in the page (retail.report/1 for `retail IN OUT`, retail.stretch/1 for `retail
// report`, without timings). Every text from the file goes in as text, never as markup.

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

const fmt = (x, digits = 3) => (typeof x === 'number' ? x.toFixed(digits) : x == null ? '—' : String(x));

// Units on every figure: lengths in metres (world units, metres by convention) and as a share of
// the character's height H ("0.412 m, 0.23 H"), ratios as "×", durations in s, shares in %.
const sig = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3).replace(/\.?0+$/, (m) =>
  (m.startsWith('.') ? '' : m)));
const metres = (x) => (typeof x === 'number' ? `${sig(x)} m` : '—');
/// A length in metres and in H (character height `h`), e.g. "20.2 m, 1.73 H".
const length = (x, h) => (typeof x !== 'number' ? '—'
  : typeof h === 'number' && h > 0 ? `${metres(x)}, ${(x / h).toFixed(2)} H` : metres(x));
const ratio = (x) => ({ text: typeof x === 'number' ? `${x.toFixed(2)}×` : '—', class: 'num' });

/// A table from a header row and rows of cells; a cell is a value or {text, class}.
function table(head, rows) {
  const t = el('table', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))));
  const body = el('tbody');
  for (const r of rows) {
    body.append(el('tr', {}, ...r.map((c) => (c && typeof c === 'object' && 'text' in c
      ? el('td', { class: c.class || '' }, c.text) : el('td', {}, c)))));
  }
  t.append(body);
  return t;
}

const num = (x, digits) => ({ text: fmt(x, digits), class: 'num' });
const torn = (x) => ({ text: `${fmt(x, 2)}%`, class: x > 0 ? 'num torn' : 'num' });

/// One clip's row: for each region present its p95, p99, max (edge length / bind length) and
/// torn share.
function stretchTable(stretch, regions) {
  const head = ['clip', 'duration'];
  for (const [, label] of regions) head.push(`${label} p95`, 'p99', 'max', 'torn');
  const rows = stretch.clips.map((c) => {
    const row = [c.name, { text: `${fmt(c.duration_s, 2)} s`, class: 'num' }];
    for (const [key] of regions) {
      const r = c[key];
      row.push(ratio(r?.p95), ratio(r?.p99), ratio(r?.max), torn(r?.torn_percent ?? 0));
    }
    return row;
  });
  return table(head, rows);
}

function piecesTable(c) {
  const verdicts = new Map((c.harm_check || []).map((h) => [h.piece, h.verdict]));
  return table(['piece', 'vertices', 'region', 'hangs from', 'length', 'decision', 'reason'],
    (c.pieces || []).map((p) => [p.id, num(p.vertices, 0), p.region, p.attachment?.name ?? '—',
      { text: length(p.length, c.height), class: 'num' },
      { text: p.decision, class: `decision-${p.decision}` },
      p.reason + (verdicts.has(p.id) && verdicts.get(p.id) !== 'kept'
        ? ` (${verdicts.get(p.id)})` : '')]));
}

function chainsTable(c) {
  return table(['piece', 'bones', 'K', 'L', 'vertices', 'root band', 'weighted bone distance'],
    (c.chains || []).map((ch) => [ch.piece,
      ch.rigid ? 'rigid on the hips' : `${ch.bones[0] ?? ''} … ${ch.bones[ch.bones.length - 1] ?? ''}`,
      num(ch.K, 0), { text: length(ch.L, c.height), class: 'num' }, num(ch.vertices, 0),
      num(ch.root_band_vertices, 0),
      `${length(ch.weighted_bone_distance.before, c.height)} → ` +
        `${length(ch.weighted_bone_distance.after, c.height)}`]));
}

/// Every chain retail grew, whatever its kind ("tail", "hair", "ears"), with its verdict against
/// its targets and the checks that failed (the report's chain_records).
function chainRecordsTable(c) {
  const failed = (r) => r.checks.filter((k) => k.verdict === 'fail')
    .map((k) => `${k.check}${k.clip ? ` (${k.clip})` : ''} ${k.value} > ${k.limit}`).join('; ');
  return table(['chain', 'kind', 'solver', 'bones', 'verdict', 'failed checks'],
    c.chain_records.map((r) => [r.name, r.kind, r.solver ?? 'not baked',
      `${r.bones[0] ?? ''} … ${r.bones[r.bones.length - 1] ?? ''}`,
      { text: r.verdict ?? '—', class: `verdict-${r.verdict}` },
      r.note ?? (failed(r) || 'none')]));
}

function leftTornTable(c) {
  return table(['piece', 'vertices', 'weighted to', 'torn', 'clip', 'why it was left'],
    c.left_torn.map((t) => [t.piece ?? '—', num(t.vertices, 0),
      t.bones.map((b) => `${b.name} ${Math.round(100 * b.share)}%`).join(', '),
      t.torn_percent === null ? 'no clip to judge' : torn(t.torn_percent), t.clip ?? 'all clips',
      t.reason]));
}

function list(items, cls) {
  return el('ul', { class: cls }, ...items.map((w) => el('li', {}, w)));
}

function rerigReport(r, root, subtitle) {
  subtitle.textContent = `${r.input.path} → ${r.output.path} · mode ${r.mode} · retail ${r.tool.version}`;
  r.characters.forEach((c, k) => {
    root.append(el('h2', {}, `Character ${k + 1}`),
      el('p', {}, `skins ${c.skins.join(', ')} · height H ${metres(c.height)} · ` +
        `${c.vertices?.source ?? '?'} skinned vertices` +
        (typeof c.bake?.floor_y === 'number' ? ` · floor at ${metres(c.bake.floor_y)} ` +
          '(drawn as the grid)' : '')));
    if ((c.left_torn || []).length) {
      root.append(el('h3', { class: 'left-torn' }, 'Torn skin left as it was'),
        el('p', { class: 'left-torn' }, 'The input tears here under its own clips, and retail ' +
          'left this skin as it was: it still tears in the output.'),
        leftTornTable(c));
    }
    if (c.stretch) {
      root.append(el('h3', {}, 'Edge stretch of the tail per clip'),
        el('p', {}, 'original: the input rig · rigid: the tail on the hips (reads 1.00×) · ' +
          'result: the output · body: the output\'s body, the baseline · p95, p99, max: an ' +
          'edge\'s length over its bind length (×) · torn: the share of edge-samples beyond the ' +
          'torn thresholds'),
        stretchTable(c.stretch, [['original', 'original'], ['rigid', 'rigid'],
          ['result', 'result'], ['body', 'body']]));
    }
    root.append(el('h3', {}, 'Pieces found'), piecesTable(c));
    if ((c.chains || []).length) root.append(el('h3', {}, 'Tail chains'), chainsTable(c));
    if ((c.chain_records || []).length) {
      root.append(el('h3', {}, 'Every grown chain: its kind and verdict'),
        el('p', {}, 'kind: tail, hair or ears · verdict against the targets: hair per-edge-worst ' +
          'p99 ≤ 8% under the head turn, penetration ≤ 1 mm at 1.8 m H, the warm-up settled, ' +
          'a loop\'s seam < 1° (docs/report-schema.md)'),
        chainRecordsTable(c));
    }
  });
}

function stretchReport(r, root, subtitle) {
  subtitle.textContent = `${r.file} · tail region: bones matching /${r.region_bones}/i`;
  r.characters.forEach((c, k) => {
    root.append(el('h2', {}, `Character ${k + 1}`),
      el('p', {}, `skins ${c.skins.join(', ')} · height H ${metres(c.height)} · ` +
        `${c.region_vertices} vertices in the tail region`),
      el('h3', {}, 'Edge stretch per clip'),
      stretchTable(c.stretch, [['result', 'region'], ['body', 'body']]));
  });
}

/// Fills `root` with the report of `data` and `subtitle` with what was run.
export function renderReport(data, root, subtitle) {
  const r = data.report;
  root.replaceChildren(el('h2', {}, 'Report'));
  if (data.kind === 'rerig') rerigReport(r, root, subtitle);
  else stretchReport(r, root, subtitle);
  root.append(el('h3', {}, 'Warnings'));
  const warnings = r.warnings || [];
  root.append(warnings.length ? list(warnings, 'warnings') : el('p', {}, 'none'));
  if ((r.failures || []).length) root.append(el('h3', {}, 'Failed checks'), list(r.failures, 'failures'));
}
