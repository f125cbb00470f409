'use strict';
// The score pad: a whole table's game kept on the server (`/api/pad`), the advised player's
// turns with the dice entered and the advice of the page, the others' turns as a box and its
// points. It sums nothing itself: every view is the server's. It uses the helpers of app.js
// (`$`, `el`, `api`, `guarded`, `optionLabel`, ...), loaded before it, and the keypad and the
// percents of the advice view (`window.yz`).

const P = { view: null, shown: null, picking: null, entered: [], card: null, advice: null, call: null };
const PAD_KEPT = 'yahtzee.pad.v1';

/** The query of the pad's rules, for /api/advise and /api/rules. */
const padRules = (v) => `rules=${encodeURIComponent(v.rules)}&upper_first=${v.upper_first}`;

async function padNew(ev) {
  ev.preventDefault();
  clearMessage();
  const players = $('#pad-players').value.split(',').map((s) => s.trim()).filter((s) => s);
  await guarded(async () => {
    const view = await api(`/api/pad?${rulesQuery()}`, { method: 'POST', body: { players } });
    await padShow(view);
    window.scrollTo(0, 0);
    padList();
  });
}

async function padAct(body) {
  clearMessage();
  await guarded(async () => padShow(await api(`/api/pad/${P.view.id}`, { method: 'POST', body })));
}

/** Shows `view`, the card of the player to move (or the one opened), and the advice. */
async function padShow(view) {
  const fresh = !P.view || P.view.id !== view.id;
  P.view = view;
  P.picking = null;
  P.entered = [];
  if (fresh || !P.card || P.card.rules !== view.rules) {
    P.card = await api(`/api/rules?${padRules(view)}`);
  }
  P.shown = view.to_move;
  localStorage.setItem(PAD_KEPT, view.id);
  $('#pad-form').hidden = true;
  $('#pad-board').hidden = false;
  padRender();
  padAdvise();
  if (view.finished) padList();
}

function padTitle(name) {
  const b = P.card && P.card.boxes.find((x) => x.name === name);
  return b ? b.title : name;
}

function padRender() {
  const v = P.view;
  const advised = v.players.find((p) => p.advised);
  $('#pad-state').textContent = v.finished
    ? `Game over: ${v.players.map((p) => `${p.name} ${p.banked}`).join(', ')}.`
    : `${v.to_move} to play, turn ${v.turn} of ${P.card.boxes.length}${v.to_move === advised.name ? '' : ': tap a box, then its points'}.`;
  $('#pad-state').dataset.lines = String(v.record_lines);
  $('#pad-undo').disabled = !v.can_undo;
  $('#pad-objective').value = v.objective.objective;
  $('#pad-target').value = v.objective.target || $('#pad-target').value;
  $('#pad-target-entry').hidden = v.objective.objective !== 'target';
  // The totals of the table, the player to move first marked; a tap opens that card.
  $('#pad-totals').replaceChildren(...v.players.map((p) => el('button', {
    type: 'button', class: 'pad-total' + (p.name === v.to_move ? ' to-move' : ''),
    'aria-pressed': String(p.name === P.shown), 'data-player': p.name,
    onclick: () => { P.shown = p.name; P.picking = null; padRender(); },
  }, el('span', { class: 'name', text: p.name }), el('span', { class: 'total', text: String(p.banked) }))));
  padRenderDice();
  padRenderCard();
}

/** The advised player's dice: those showing, or the keypad for the dice due. */
function padRenderDice() {
  const v = P.view;
  const box = $('#pad-dice');
  box.hidden = !(v.expect.kind === 'dice' || v.expect.kind === 'decision');
  const kept = v.kept || [];
  const shown = v.expect.kind === 'dice' ? kept.concat(P.entered) : (v.dice || []);
  const count = v.expect.kind === 'dice' ? kept.length + v.expect.count : shown.length;
  $('#pad-dice-shown').replaceChildren(...Array.from({ length: count }, (_, i) => el('span', {
    class: 'die' + (i < kept.length ? ' kept' : ''), text: shown[i] ? String(shown[i]) : '·',
  })));
  $('#pad-dice-label').textContent = v.expect.kind === 'dice'
    ? `${v.to_move}: enter ${v.expect.what} (${v.expect.count} ${v.expect.count === 1 ? 'die' : 'dice'})`
    : `${v.to_move}'s dice, ${v.rolls_left} ${v.rolls_left === 1 ? 'roll' : 'rolls'} left`;
  $('#pad-keypad').hidden = v.expect.kind !== 'dice';
}

/** Erase: the last die entered on the keypad is open again. */
function padErase() {
  if (P.entered.length === 0) return;
  P.entered.pop();
  padRenderDice();
}

function padDigit(face) {
  const v = P.view;
  if (v.expect.kind !== 'dice') return;
  P.entered.push(face);
  if (P.entered.length < v.expect.count) {
    padRenderDice();
    return;
  }
  const dice = P.entered;
  P.entered = [];
  padAct({ dice });
}

/** The cards, a column per player (a phone shows the column of the player to move, or of the
 * one opened): the boxes, each open box of the player to move a button (for the advised
 * player the points the dice would score there; for another, a tap opens the grid of its
 * points). */
function padRenderCard() {
  const v = P.view;
  const shown = Math.max(0, v.players.findIndex((p) => p.name === P.shown));
  const player = v.players[shown];
  const open = new Map(v.open.map((o) => [o.name, o]));
  $('#pad-card-title').replaceChildren(
    el('span', { class: 'pad-one', text: `${player.name}'s card${player.advised ? ' (advised)' : ''}` }),
    el('span', { class: 'pad-all', text: `The cards, ${v.players.find((p) => p.advised).name} advised` }));
  const col = (i) => 'pad-col' + (i === shown ? ' shown' : '') + (v.players[i].name === v.to_move ? ' to-move' : '');
  const cell = (p, b) => {
    const o = p.name === v.to_move ? open.get(b.name) : null;
    if (b.points !== null) return el('span', { class: 'points', text: String(b.points) });
    if (o && p.advised && v.expect.kind === 'decision' && o.scores) {
      const s = o.scores;
      return el('button', {
        type: 'button', class: 'pad-box secondary', 'data-box': b.name,
        'aria-label': `${b.title}: score ${s.points}${s.bonus ? ` and a bonus of ${s.bonus}` : ''}`,
        onclick: () => padAct({ score: b.name }),
      }, `${s.points}${s.bonus ? ` +${s.bonus}` : ''}`);
    }
    if (o && !p.advised && v.expect.kind === 'points') {
      return el('button', {
        type: 'button', class: 'pad-box secondary' + (P.picking === b.name ? ' picking' : ''),
        'data-box': b.name, 'aria-expanded': String(P.picking === b.name),
        'aria-label': `${b.title}: enter ${p.name}'s points`,
        onclick: () => { P.picking = P.picking === b.name ? null : b.name; padRenderCard(); },
      }, 'enter');
    }
    return el('span', { class: 'open', text: '–' });
  };
  const head = el('tr', {}, el('td', {}), ...v.players.map((p, i) => el('th', { scope: 'col', class: col(i), text: p.name })));
  const rows = player.boxes.map((b, k) => el('tr', {}, el('th', { scope: 'row', text: b.title }),
    ...v.players.map((p, i) => el('td', { class: col(i) }, cell(p, p.boxes[k])))));
  rows.push(el('tr', { class: 'total' }, el('th', { scope: 'row', text: 'Total' }),
    ...v.players.map((p, i) => el('td', { class: col(i), text: String(p.banked) }))));
  $('#pad-card').replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
  const mover = v.players.find((p) => p.name === v.to_move);
  const grid = $('#pad-points');
  const o = P.picking && open.get(P.picking);
  grid.hidden = !o;
  if (!o) return;
  $('#pad-points-title').textContent = `${padTitle(o.name)}: ${mover.name}'s points`;
  $('#pad-points-grid').replaceChildren(...o.options.map((a) => el('button', {
    type: 'button', class: 'pad-value', 'data-points': a.points, 'data-bonus': a.bonus,
    'aria-label': `${a.points} points${a.yahtzee_bonus ? ' and the bonus of a further five of a kind' : ''}`,
    onclick: () => padAct({ box: o.name, points: a.points, yahtzee_bonus: a.yahtzee_bonus }),
  }, `${a.points}${a.yahtzee_bonus ? ' +Y' : ''}`)));
}

/** The advice of the advised player's decision under the pad's objective: `/api/advise` on
 * the question the view hands (the other players' cards as opponents to win). */
async function padAdvise() {
  if (P.call) P.call.abort();
  const list = $('#pad-options');
  const v = P.view;
  list.replaceChildren();
  $('#pad-summary').textContent = '';
  if (!v.advice) return;
  const call = new AbortController();
  P.call = call;
  $('#pad-summary').textContent = 'Asking the advisor…';
  try {
    const answer = await api(`/api/advise?${padRules(v)}`, { method: 'POST', body: v.advice, signal: call.signal });
    if (P.call !== call) return;
    const best = answer.options[0];
    const value = (o) => ('target' in answer ? o.p_reach
      : 'opponents' in answer ? o.p_win : o.expected_final);
    const shown = (o) => ('target' in answer || 'opponents' in answer
      ? window.yz.percent(value(o)) : fixed(value(o), 2));
    list.classList.toggle('provisional', Boolean(answer.provisional));
    $('#pad-summary').classList.toggle('provisional', Boolean(answer.provisional));
    if (answer.provisional) list.dataset.provisional = 'true';
    else delete list.dataset.provisional;
    $('#pad-summary').textContent = (answer.provisional ? `${provisionalWords(answer.provisional)} ` : '') + ('target' in answer
      ? `Best chance of ${answer.target} or more: ${window.yz.percent(answer.p_reach)}, by ${optionLabel(best, P.card)}.`
      : 'opponents' in answer
        ? `Best chance of winning against the pad's other cards: ${window.yz.percent(answer.p_win)}, by ${optionLabel(best, P.card)}.`
        : `Best: ${optionLabel(best, P.card)}, expected final score ${fixed(best.expected_final, 2)}.`);
    answer.options.slice(0, 5).forEach((o, i) => {
      const label = optionLabel(o, P.card);
      list.append(el('li', {}, el('button', {
        type: 'button', class: 'option' + (i === 0 ? ' best' : ''), 'data-rank': i + 1,
        'data-kind': o.kind, 'data-label': label, 'data-value': String(value(o)),
        'data-keep': o.kind === 'keep' ? o.keep.join('') : null,
        onclick: () => padAct(o.kind === 'keep' ? { keep: o.keep } : { score: o.category }),
      }, el('span', { class: 'label', text: `${i + 1}. ${label}` }), el('span', { class: 'value', text: shown(o) }))));
    });
    // Expected-score advice until the table of the objective is built: asked again then.
    if (answer.provisional && answer.provisional.state !== 'cancelled') padAwait(call, answer.provisional);
  } catch (e) {
    if (e.name !== 'AbortError' && P.call === call) {
      $('#pad-summary').textContent = '';
      showMessage(e.message);
    }
  }
}

/** Asks the advice again once the table a provisional answer waits for is ready (unless the
 * advice asked meanwhile changed). */
async function padAwait(call, p) {
  const v = P.view;
  while (P.call === call) {
    await sleep(1000);
    if (P.call !== call) return;
    let all;
    try {
      all = await api('/api/status');
    } catch (e) {
      return;
    }
    const t = all.tables.find((x) => x.rules === v.rules && x.upper_first === v.upper_first && x.objective === p.table);
    if (!t || t.state === 'ready') {
      if (P.call === call) padAdvise();
      return;
    }
    if (t.state === 'failed' || t.state === 'cancelled') return;
  }
}

async function padObjective() {
  const objective = $('#pad-objective').value;
  $('#pad-target-entry').hidden = objective !== 'target';
  const body = { objective };
  if (objective === 'target') {
    const text = $('#pad-target').value.trim();
    if (!/^\d{1,6}$/.test(text)) return;
    body.target = Number(text);
  }
  await padAct(body);
}

/** The list of kept games, with Resume, Download and Review. */
async function padList() {
  await guarded(async () => {
    const { games } = await api('/api/pad');
    $('#pad-games').replaceChildren(...games.map((g) => el('li', { 'data-id': g.id },
      el('span', { class: 'pad-game', text: `${g.started.replace('T', ' ').replace('Z', ' UTC')}: ${g.players.map((p, i) => `${p} ${g.totals[i]}`).join(', ')}${g.finished ? '' : ' (playing)'}` }),
      el('span', { class: 'actions' },
        el('button', { type: 'button', class: 'secondary', 'data-action': 'resume', 'aria-label': `Resume the game of ${g.started}`, onclick: () => padResume(g.id) }, 'Resume'),
        el('a', { class: 'button secondary', href: `/api/pad/${g.id}/record`, download: `${g.id}.jsonl`, 'aria-label': `Download the game of ${g.started}` }, 'Download'),
        el('button', { type: 'button', class: 'secondary', 'data-action': 'review', 'aria-label': `Review the game of ${g.started}`, onclick: () => padReview(g.id) }, 'Review')))));
    $('#pad-list').hidden = games.length === 0;
  });
}

async function padResume(id) {
  clearMessage();
  await guarded(async () => {
    await padShow(await api(`/api/pad/${id}`));
    window.scrollTo(0, 0);
  });
}

/** Reviews a kept game in the review view, in expected points: the advised player's rating
 * of the game and every decision. */
async function padReview(id) {
  clearMessage();
  await guarded(async () => {
    const response = await answered(`/api/pad/${id}/record`, { headers: baseHeaders() });
    R.text = await response.text();
    R.name = `${id}.jsonl`;
    $('input[name="review-objective"][value="expected-score"]').checked = true;
    showView('review');
    await reviewRecord();
    $('#review-title').focus();
  });
}

/** The other players of the Pad's game (the one this browser shows), for the advice view's
 * objective to win: `{view, names, banked, opponents}` (the opponents as `/api/advise` takes
 * them: each card, a full one a finished opponent), or null with no game on the Pad. */
async function padOpponents() {
  const id = localStorage.getItem(PAD_KEPT);
  if (!id) return null;
  let view;
  try {
    view = await api(`/api/pad/${encodeURIComponent(id)}`);
  } catch (e) {
    return null;
  }
  const others = view.players.filter((p) => !p.advised);
  return {
    view,
    names: others.map((p) => p.name),
    banked: others.map((p) => p.banked),
    opponents: others.map((p) => ({ card: cardObject(p), yahtzee_bonus: p.yahtzee_bonus })),
  };
}

function padStart() {
  $('#tab-pad').addEventListener('click', () => { showView('pad'); padList(); });
  $('#pad-form').addEventListener('submit', padNew);
  $('#pad-new').addEventListener('click', () => { $('#pad-form').hidden = false; $('#pad-players').focus(); });
  $('#pad-undo').addEventListener('click', () => padAct({ undo: true }));
  $('#pad-objective').addEventListener('change', padObjective);
  $('#pad-target').addEventListener('change', padObjective);
  // The keypad of the advice view: the six faces and Erase.
  const keys = window.yz.keypad(padDigit, padErase, 'Enter the dice: tap each face rolled');
  keys.id = 'pad-keypad';
  $('#pad-keypad').replaceWith(keys);
  const kept = localStorage.getItem(PAD_KEPT);
  if (kept) {
    api(`/api/pad/${kept}`).then(padShow).catch(() => localStorage.removeItem(PAD_KEPT));
  }
}

window.yz.padOpponents = padOpponents;
padStart();
