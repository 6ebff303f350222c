/* global document, window, fetch, IntersectionObserver, Option */
/**
 * The run viewer's page: a timeline of calls loaded a page at a time, the selected call's
 * screenshot with every element's box over it, its diff in four colours, its summary and
 * its tree file with search and a role filter, and two calls side by side with their pixel
 * diff. Plain DOM, no build step, nothing from the network but this server.
 */

const PAGE = 100;
const $ = (id) => document.getElementById(id);

const state = {
  calls: [],
  total: undefined,
  loading: undefined,
  selected: -1,
  markA: -1,
  /** Bumped on every selection, so a slow answer for an earlier call is dropped. */
  generation: 0,
  /** The selected call's parsed pair and tree lines. */
  pair: undefined,
  lineEls: new Map(),
};

async function getJson(url) {
  const res = await fetch(url, { credentials: 'same-origin' });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `${res.status} ${res.statusText}`);
  return body;
}

// ---- timeline -------------------------------------------------------------------------

function loadMore() {
  if (state.loading) return state.loading;
  if (state.total !== undefined && state.calls.length >= state.total) return Promise.resolve();
  const offset = state.calls.length;
  state.loading = getJson(`/api/calls?offset=${offset}&limit=${PAGE}`)
    .then((page) => {
      state.total = page.total;
      const body = $('calls');
      for (const call of page.calls) {
        state.calls[call.index] = call;
        body.appendChild(callRow(call));
      }
      $('more').textContent =
        state.calls.length < page.total
          ? `${state.calls.length} of ${page.total} calls: scroll for more`
          : `${page.total} calls`;
      $('dir-info').textContent = `${page.total} calls`;
    })
    .catch((err) => {
      $('more').textContent = `could not load calls: ${err.message}`;
    })
    .finally(() => {
      state.loading = undefined;
    });
  return state.loading;
}

function targetText(call) {
  if (call.target) {
    const text = call.target.text ? ` "${call.target.text}"` : '';
    return `${call.target.role}${text} ${call.target.ref}`;
  }
  const args = call.args || {};
  for (const key of ['query', 'ref', 'app']) {
    if (args[key] !== undefined) return `${key}: ${String(args[key])}`;
  }
  return call.app || '';
}

function changesText(c) {
  if (!c) return '';
  const parts = [];
  if (c.added) parts.push(`+${c.added}`);
  if (c.removed) parts.push(`-${c.removed}`);
  if (c.modified) parts.push(`~${c.modified}`);
  if (c.moved) parts.push(`→${c.moved}`);
  return parts.join(' ');
}

function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function callRow(call) {
  const tr = document.createElement('tr');
  tr.className = `call ${call.outcome}`;
  tr.dataset.index = String(call.index);
  const outcome = call.outcome === 'error' ? call.error_code || 'error' : call.outcome;
  const target = targetText(call);
  tr.append(
    cell(String(call.index + 1)),
    cell(call.tool),
    cell(target, 'target'),
    cell(outcome, 'outcome'),
    cell(call.ms === undefined ? '' : String(Math.round(call.ms))),
    cell(call.summary_bytes === undefined ? '' : String(call.summary_bytes)),
    cell(changesText(call.changes)),
  );
  tr.title = target;
  tr.addEventListener('click', () => void select(call.index));
  return tr;
}

function rowOf(index) {
  return document.querySelector(`#calls tr[data-index="${index}"]`);
}

// ---- one call -----------------------------------------------------------------------

async function select(index) {
  if (index < 0) return;
  while (index >= state.calls.length && (state.total === undefined || index < state.total)) {
    const before = state.calls.length;
    await loadMore();
    if (state.calls.length === before) return;
  }
  const call = state.calls[index];
  if (!call) return;
  const generation = ++state.generation;
  // Set again once this call is on screen (a test, or a script, can wait for it).
  delete document.body.dataset.loaded;
  rowOf(state.selected)?.classList.remove('selected');
  state.selected = index;
  const row = rowOf(index);
  row?.classList.add('selected');
  row?.scrollIntoView({ block: 'nearest' });
  $('compare').disabled = state.markA < 0 || state.markA === index;
  $('compare-view').hidden = true;
  showHead(call);
  $('summary').textContent = call.summary ?? '(the session log kept no summary for this call)';
  $('tree-name').textContent = call.tree || '';
  showShot(call);
  $('boxes').replaceChildren();
  $('tree').replaceChildren();
  state.pair = undefined;
  state.lineEls = new Map();
  if (!call.tree) {
    $('tree').textContent = 'this call wrote no tree file';
    document.body.dataset.loaded = String(index);
    return;
  }
  try {
    const [pair, text] = await Promise.all([
      getJson(`/api/pair/${index}`),
      fetch(`/files/${encodeURIComponent(call.tree)}`).then((r) => {
        if (!r.ok) throw new Error(`tree file: ${r.status}`);
        return r.text();
      }),
    ]);
    if (generation !== state.generation) return;
    state.pair = pair;
    document.body.dataset.loaded = String(index);
    drawBoxes();
    showTree(text);
  } catch (err) {
    if (generation !== state.generation) return;
    $('tree').textContent = `could not load: ${err.message}`;
    document.body.dataset.loaded = String(index);
  }
}

function showHead(call) {
  const bits = [
    `#${call.index + 1}`,
    call.tool,
    targetText(call),
    call.outcome === 'error' ? `error ${call.error_code || ''}` : call.outcome,
    call.ms === undefined ? '' : `${Math.round(call.ms)} ms`,
    call.summary_bytes === undefined ? '' : `${call.summary_bytes} B summary`,
    call.time || '',
    call.app ? `${call.app}${call.pid ? ` (${call.pid})` : ''}` : '',
  ];
  $('call-head').textContent = bits.filter(Boolean).join(' · ');
  $('call-head').className = '';
}

function showShot(call) {
  const img = $('shot-img');
  if (call.png) {
    $('shot').hidden = false;
    $('no-shot').hidden = true;
    img.src = `/files/${encodeURIComponent(call.png)}`;
  } else {
    $('shot').hidden = true;
    $('no-shot').hidden = false;
    $('no-shot').textContent = 'this call wrote no screenshot';
    img.removeAttribute('src');
  }
}

/** The screen rectangle the image shows: boxes are placed as fractions of it. */
function captureRect() {
  const pair = state.pair;
  if (pair && pair.capture) return pair.capture;
  const img = $('shot-img');
  return { x: 0, y: 0, w: img.naturalWidth || 1, h: img.naturalHeight || 1 };
}

function drawBoxes() {
  const layer = $('boxes');
  layer.replaceChildren();
  const pair = state.pair;
  if (!pair || !state.calls[state.selected]?.png) return;
  const cap = captureRect();
  const place = (el, box) => {
    el.style.left = `${((box.x - cap.x) / cap.w) * 100}%`;
    el.style.top = `${((box.y - cap.y) / cap.h) * 100}%`;
    el.style.width = `${(box.w / cap.w) * 100}%`;
    el.style.height = `${(box.h / cap.h) * 100}%`;
  };
  // The screenshot is of the call's own app: the boxes of an app it switched to are elsewhere.
  for (const e of pair.elements) {
    if (!e.box || e.section !== 0 || e.box.w <= 0 || e.box.h <= 0) continue;
    const div = document.createElement('div');
    div.className = e.diff ? `box diff-${e.diff}` : 'box';
    div.dataset.ref = e.ref;
    div.dataset.line = String(e.line);
    if (e.diff) div.dataset.diff = e.diff;
    place(div, e.box);
    div.addEventListener('mouseenter', (ev) => showTip(ev, e));
    div.addEventListener('mousemove', moveTip);
    div.addEventListener('mouseleave', hideTip);
    div.addEventListener('click', () => focusLine(e.line, div));
    layer.appendChild(div);
  }
  // A removed element is not in the tree any more: its box is where it was.
  for (const d of pair.diff) {
    if (d.kind !== 'removed' || !d.box || d.box.w <= 0 || d.box.h <= 0) continue;
    const div = document.createElement('div');
    div.className = 'box diff-removed';
    div.dataset.diff = 'removed';
    div.dataset.line = String(d.line);
    if (d.ref) div.dataset.ref = d.ref;
    place(div, d.box);
    const info = { role: d.role || '', text: d.text, ref: d.ref || '', states: ['(removed)'] };
    div.addEventListener('mouseenter', (ev) => showTip(ev, info));
    div.addEventListener('mousemove', moveTip);
    div.addEventListener('mouseleave', hideTip);
    div.addEventListener('click', () => focusLine(d.line, div));
    layer.appendChild(div);
  }
}

function showTip(ev, e) {
  const tip = $('tip');
  const lines = [`${e.role} ${e.ref}`];
  if (e.text) lines.push(`"${e.text}"`);
  if (e.states && e.states.length) lines.push(e.states.join(' '));
  if (e.diff) lines.push(`diff: ${e.diff}`);
  tip.textContent = lines.join('\n');
  tip.hidden = false;
  moveTip(ev);
}

function moveTip(ev) {
  const tip = $('tip');
  tip.style.left = `${ev.clientX + 14}px`;
  tip.style.top = `${ev.clientY + 14}px`;
}

function hideTip() {
  $('tip').hidden = true;
}

// ---- the tree file --------------------------------------------------------------------

function showTree(text) {
  const tree = $('tree');
  const byLine = new Map(state.pair.elements.map((e) => [e.line, e]));
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const frag = document.createDocumentFragment();
  lines.forEach((line, i) => {
    const n = i + 1;
    const div = document.createElement('div');
    div.className = 'line';
    div.dataset.line = String(n);
    const e = byLine.get(n);
    if (e) {
      div.dataset.ref = e.ref;
      div.dataset.role = e.role;
    }
    const no = document.createElement('span');
    no.className = 'no';
    no.textContent = String(n);
    div.append(no, document.createTextNode(line));
    frag.appendChild(div);
    state.lineEls.set(n, div);
  });
  tree.replaceChildren(frag);
  const roles = [...new Set(state.pair.elements.map((e) => e.role))].sort();
  const select = $('role-filter');
  const chosen = select.value;
  select.replaceChildren(new Option('all roles', ''), ...roles.map((r) => new Option(r, r)));
  select.value = roles.includes(chosen) ? chosen : '';
  applyFilter();
}

function lineMatches(div, query, role) {
  if (role && div.dataset.role !== role) return false;
  if (!query) return true;
  const text = div.textContent.slice(div.firstChild.textContent.length).toLowerCase();
  // A ref matches as a whole word (e1 is not e12): its element line and the diff's lines.
  if (/^e\d+$/.test(query))
    return div.dataset.ref === query || new RegExp(`\\b${query}\\b`).test(text);
  return text.includes(query);
}

function applyFilter() {
  const query = $('search').value.trim().toLowerCase();
  const role = $('role-filter').value;
  let shown = 0;
  let first;
  for (const div of state.lineEls.values()) {
    const ok = lineMatches(div, query, role);
    div.classList.toggle('hidden', !ok);
    div.classList.toggle('match', ok && query !== '');
    if (ok) {
      shown++;
      first ??= div;
    }
  }
  $('search-count').textContent = query || role ? `${shown} line${shown === 1 ? '' : 's'}` : '';
  if (query && first) first.scrollIntoView({ block: 'nearest' });
}

function focusLine(line, box) {
  document.querySelectorAll('.hot').forEach((el) => el.classList.remove('hot'));
  box?.classList.add('hot');
  const div = state.lineEls.get(line);
  if (!div) return;
  if (div.classList.contains('hidden')) {
    $('search').value = '';
    $('role-filter').value = '';
    applyFilter();
  }
  div.classList.add('hot');
  div.scrollIntoView({ block: 'center' });
}

// ---- compare two calls ----------------------------------------------------------------

function markA() {
  if (state.selected < 0) return;
  rowOf(state.markA)?.classList.remove('marked');
  state.markA = state.selected;
  rowOf(state.markA)?.classList.add('marked');
  $('marked').textContent = `A = #${state.markA + 1}`;
  $('compare').disabled = true;
}

function compare() {
  const a = state.calls[state.markA];
  const b = state.calls[state.selected];
  if (!a || !b || a === b) return;
  $('compare-view').hidden = false;
  $('cmp-a-cap').textContent = `A: #${a.index + 1} ${a.tool}`;
  $('cmp-b-cap').textContent = `B: #${b.index + 1} ${b.tool}`;
  $('cmp-a').src = a.png ? `/files/${encodeURIComponent(a.png)}` : '';
  $('cmp-b').src = b.png ? `/files/${encodeURIComponent(b.png)}` : '';
  const url = `/api/pixeldiff?a=${a.index}&b=${b.index}`;
  const err = $('cmp-error');
  err.hidden = true;
  const img = $('cmp-diff');
  img.hidden = false;
  img.onerror = () => {
    img.hidden = true;
    getJson(url).catch((e) => {
      err.textContent = `no pixel diff: ${e.message}`;
      err.hidden = false;
    });
  };
  img.src = url;
}

// ---- wiring ----------------------------------------------------------------------------

function onKey(ev) {
  const tag = ev.target && ev.target.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const next = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 }[ev.key];
  if (next !== undefined) {
    ev.preventDefault();
    void select(Math.max(0, state.selected + next));
  } else if (ev.key === 'a') markA();
  else if (ev.key === 'c') compare();
}

function start() {
  // The token stays in the cookie; the address bar need not keep showing it.
  if (window.location.search) window.history.replaceState(null, '', '/');
  document.addEventListener('keydown', onKey);
  $('search').addEventListener('input', applyFilter);
  $('role-filter').addEventListener('change', applyFilter);
  $('mark-a').addEventListener('click', markA);
  $('compare').addEventListener('click', compare);
  $('shot-img').addEventListener('error', () => {
    // Named in the log but not on disk any more (the dir's retention removed it).
    if (!$('shot-img').getAttribute('src')) return;
    $('shot').hidden = true;
    $('no-shot').hidden = false;
    $('no-shot').textContent = 'the screenshot is not on disk any more';
  });
  $('shot-img').addEventListener('load', () => {
    if (!state.pair?.capture) drawBoxes();
  });
  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) void loadMore();
  }).observe($('more'));
  void loadMore().then(() => {
    if (state.calls.length) void select(0);
  });
}

start();
