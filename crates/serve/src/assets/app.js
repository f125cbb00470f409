// The page of `yahtzee serve`. Every answer comes from the server's API (the library's own
// calls): the card and its checks, the advice, the games, the reviews. This script only
// shows them, sums nothing but what the server sends, and sends what the player clicks.
'use strict';

// ---------------------------------------------------------------- helpers

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** An element with attributes (`class`, `text`, `on*` handlers, `data-*`, others) and children. */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) e.append(c);
  return e;
}

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** Calls the API: the JSON answer, or an ApiError with the server's message (an aborted
 * call throws its AbortError). */
async function api(path, { method = 'GET', body, signal } = {}) {
  const init = { method, headers: {}, signal };
  // Every POST says it carries JSON, with a body or without: the server refuses any other.
  if (method !== 'GET') init.headers['Content-Type'] = 'application/json';
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError('the server does not answer: is `yahtzee serve` still running?', 0);
  }
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    data = { error: text };
  }
  if (!response.ok) throw new ApiError(data.error || response.statusText, response.status);
  return data;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function showMessage(text) {
  $('#message').textContent = text;
}
function clearMessage() {
  $('#message').textContent = '';
}
/** Runs `work`, showing its error (the server's one-line message) instead of throwing. */
async function guarded(work) {
  try {
    return await work();
  } catch (e) {
    showMessage(e instanceof ApiError ? e.message : String(e));
    return undefined;
  }
}

const fixed = (x, d) => Number(x).toFixed(d);
/** A probability as the command line shows it (`yahtzee_core::text::probability`). */
function probability(p) {
  if (p === 0 || p === 1) return String(p);
  if (p > 0 && p < 0.00005) return p.toExponential(1).replace('e-', 'e-');
  if (p > 0.99995 && p < 1) return '> 0.9999';
  return fixed(p, 4);
}
/** A chance from a table that leaves out a tail (`yahtzee_core::text::chance`). */
function chance(p, reachable, tail) {
  if (p === 0 && reachable && tail > 0) return '< ' + tail.toExponential(0);
  return probability(p);
}
/** An option of an answer in words, as the command line writes it. */
function optionLabel(o) {
  if (o.kind === 'keep') {
    if (o.stop_and_score) return 'stop and score ' + o.stop_and_score;
    if (o.keep.length === 0) return 'reroll all';
    return 'keep ' + o.keep.join(' ');
  }
  return o.bonus > 0
    ? `score ${o.category} for ${o.points} (+${o.bonus} bonus)`
    : `score ${o.category} for ${o.points}`;
}

/** One die as SVG pips. */
const PIPS = {
  1: [[2, 2]],
  2: [[1, 1], [3, 3]],
  3: [[1, 1], [2, 2], [3, 3]],
  4: [[1, 1], [3, 1], [1, 3], [3, 3]],
  5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
  6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]],
};
function pips(face) {
  return svg('svg', { viewBox: '0 0 40 40', 'aria-hidden': 'true', focusable: 'false' },
    PIPS[face].map(([x, y]) => svg('circle', { cx: x * 10, cy: y * 10, r: 4, fill: 'currentColor' })));
}

function dieButton(face, attrs) {
  const b = el('button', Object.assign({ type: 'button', class: 'die' + (face ? '' : ' unknown') }, attrs));
  if (face) b.append(pips(face));
  else b.textContent = '?';
  return b;
}

// ---------------------------------------------------------------- state

/** The advisor: the rules, the position, the objective and the history for undo. */
const S = {
  rules: 'yahtzee',
  upperFirst: false,
  rulesCard: null,
  view: null,           // the card as the server checked it (/api/card)
  dice: [1, 3, 3, 5, 6], // null: not rolled yet
  rollsLeft: 2,
  objective: 'ev',
  history: [],
  seq: 0,
  editing: null,        // the box being entered
};

const rulesQuery = () => `rules=${encodeURIComponent(S.rules)}&upper_first=${S.upperFirst}`;

/** The card of a view as the batch protocol takes it: box name to points. */
function cardObject(view) {
  const card = {};
  for (const b of view.boxes) if (b.points !== null) card[b.name] = b.points;
  return card;
}

/** The card of a view as the command line writes it, with `name` set to `text` ('' opens it). */
function cardText(view, name, text) {
  const parts = [];
  for (const b of view.boxes) {
    if (b.name === name) {
      if (text !== '') parts.push(`${b.name}=${text}`);
    } else if (b.points !== null) {
      parts.push(`${b.name}=${b.points}`);
    }
  }
  return parts.join(',');
}

function snapshot() {
  return { view: S.view, dice: S.dice.slice(), rollsLeft: S.rollsLeft };
}
function pushHistory() {
  S.history.push(snapshot());
  if (S.history.length > 200) S.history.shift();
  $('#undo').disabled = false;
}

// ---------------------------------------------------------------- tables

const loading = new Map();

/** Waits until the server holds the `objective` table of the rules (the page's, or those
 * given), showing its progress; one wait per table, however many ask. */
function ensureTable(objective, rules = S.rules, upperFirst = S.upperFirst) {
  const key = `rules=${encodeURIComponent(rules)}&upper_first=${upperFirst}&objective=${objective}`;
  if (!loading.has(key)) {
    const p = waitTable(objective, rules, upperFirst).finally(() => loading.delete(key));
    loading.set(key, p);
  }
  return loading.get(key);
}

async function waitTable(objective, rules, upperFirst) {
  const q = `rules=${encodeURIComponent(rules)}&upper_first=${upperFirst}&objective=${objective}`;
  let status = await api(`/api/load?${q}`, { method: 'POST' });
  const box = $('#status');
  const what = { 'target': 'the target table', 'distribution': 'the table of the opponents\' scores' }[objective] || 'the strategy table';
  while (status.state !== 'ready') {
    if (status.state === 'failed') {
      box.hidden = true;
      throw new ApiError(status.error, 500);
    }
    box.hidden = false;
    const bar = $('#status-progress');
    if (status.state === 'building' && status.total > 0) {
      $('#status-text').textContent =
        `Building ${what} of ${rules} once (it is then kept): ${status.done} of ${status.total} cards`;
      bar.max = status.total;
      bar.value = status.done;
    } else {
      $('#status-text').textContent = `Loading ${what} of ${rules}…`;
      bar.removeAttribute('value');
    }
    await sleep(250);
    const all = await api('/api/status');
    status = all.tables.find((t) => t.rules === rules && t.upper_first === upperFirst
      && t.objective === objective) || status;
  }
  box.hidden = true;
}

// ---------------------------------------------------------------- the score card

function renderCard() {
  const table = $('#card');
  table.replaceChildren();
  const card = S.rulesCard;
  const view = S.view;
  if (!card || !view) return;
  const body = el('tbody');
  const upperCount = card.boxes.filter((b) => b.section === 'upper').length;
  card.boxes.forEach((b, i) => {
    const points = view.boxes[i].points;
    let cell;
    if (S.editing === b.name) {
      const input = el('input', {
        type: 'text', inputmode: 'numeric', value: points === null ? '' : points,
        'aria-label': `points in ${b.title} (empty: open)`, size: 4,
      });
      const form = el('form', { class: 'box-edit' }, input,
        el('button', { type: 'submit', text: 'OK' }),
        el('button', {
          type: 'button', class: 'secondary', text: 'Cancel',
          onclick: () => { S.editing = null; renderCard(); focusBox(b.name); },
        }));
      form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        enterBox(b.name, input.value.trim());
      });
      input.addEventListener('keydown', (ev) => {
        if (ev.key === 'Escape') { S.editing = null; renderCard(); focusBox(b.name); }
      });
      cell = el('td', { class: 'num' }, form);
      setTimeout(() => { input.focus(); input.select(); }, 0);
    } else {
      cell = el('td', { class: 'num' }, el('button', {
        type: 'button', class: 'box' + (points === null ? ' open' : ''), 'data-box': b.name,
        'aria-label': `${b.title}: ${points === null ? 'open' : points + ' points'}; select to enter its points`,
        title: `${b.scores}; can hold ${b.possible}`,
        text: points === null ? '–' : points,
        onclick: () => { S.editing = b.name; renderCard(); },
      }));
    }
    body.append(el('tr', {}, el('th', { scope: 'row', text: b.title }), cell));
    if (i === upperCount - 1) {
      const bonus = card.upper_bonus;
      const progress = bonus
        ? el('span', { class: 'bonus-bar', 'aria-hidden': 'true' }, (() => {
          const s = el('span');
          s.style.width = `${Math.min(100, (100 * view.upper_total) / bonus.threshold)}%`;
          return s;
        })())
        : null;
      body.append(el('tr', { class: 'sum' },
        el('th', { scope: 'row' }, bonus ? `Upper total (bonus at ${bonus.threshold})` : 'Upper total', progress),
        el('td', { class: 'num', id: 'upper-total', text: bonus ? `${view.upper_total} / ${bonus.threshold}` : view.upper_total })));
      if (bonus) {
        body.append(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: `Upper bonus (${bonus.points})` }),
          el('td', { class: 'num', id: 'upper-bonus', text: view.upper_bonus })));
      }
    }
  });
  if (card.five_of_a_kind_bonus) {
    body.append(el('tr', { class: 'sum' },
      el('th', { scope: 'row', text: `Yahtzee bonuses (${card.five_of_a_kind_bonus} each)` }),
      el('td', { class: 'num', id: 'yahtzee-bonus-points', text: view.yahtzee_bonus_points })));
  }
  body.append(el('tr', { class: 'total' }, el('th', { scope: 'row', text: 'Total' }),
    el('td', { class: 'num', id: 'total', text: view.banked })));
  table.append(body);
  $('#bonus-entry').hidden = !card.five_of_a_kind_bonus;
  $('#yahtzee-bonus').value = view.yahtzee_bonus;
}

function focusBox(name) {
  const b = $(`#card button.box[data-box="${name}"]`);
  if (b) b.focus();
}

/** Checks a card with the server: its view, or the server's message. */
function checkCard(card, yahtzeeBonus, score) {
  const body = { card, yahtzee_bonus: yahtzeeBonus };
  if (score) body.score = score;
  return api(`/api/card?${rulesQuery()}`, { method: 'POST', body });
}

async function enterBox(name, text) {
  clearMessage();
  try {
    const view = await checkCard(cardText(S.view, name, text), S.view.yahtzee_bonus);
    pushHistory();
    S.view = view;
    S.editing = null;
    renderCard();
    focusBox(name);
    refresh();
  } catch (e) {
    showMessage(e.message);
  }
}

async function enterBonus() {
  clearMessage();
  const n = Number($('#yahtzee-bonus').value);
  try {
    const view = await checkCard(S.view.card, Number.isInteger(n) ? n : -1);
    pushHistory();
    S.view = view;
    renderCard();
    refresh();
  } catch (e) {
    showMessage(e.message);
    $('#yahtzee-bonus').value = S.view.yahtzee_bonus;
  }
}

// ---------------------------------------------------------------- the dice

function renderDice() {
  const box = $('#dice');
  box.replaceChildren();
  S.dice.forEach((face, i) => {
    const b = dieButton(face, {
      'data-i': i,
      'aria-label': `die ${i + 1}: ${face ? 'shows ' + face : 'not rolled yet'}`,
      onclick: () => setDie(i, face ? (face % 6) + 1 : 1),
      onkeydown: (ev) => dieKey(ev, i),
    });
    box.append(b);
  });
  $('#roll-open').disabled = !S.dice.includes(null);
  const radio = $(`input[name="rolls-left"][value="${S.rollsLeft}"]`);
  if (radio) radio.checked = true;
}

function setDie(i, face) {
  S.dice[i] = face;
  renderDice();
  $(`#dice button[data-i="${i}"]`).focus();
  refresh();
}

function dieKey(ev, i) {
  const face = S.dice[i] || 0;
  if (/^[1-6]$/.test(ev.key)) {
    ev.preventDefault();
    setDie(i, Number(ev.key));
    const next = $(`#dice button[data-i="${i + 1}"]`);
    if (next) next.focus();
  } else if (ev.key === 'ArrowUp') {
    ev.preventDefault();
    setDie(i, (face % 6) + 1);
  } else if (ev.key === 'ArrowDown') {
    ev.preventDefault();
    setDie(i, face <= 1 ? 6 : face - 1);
  } else if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
    ev.preventDefault();
    const j = (i + (ev.key === 'ArrowRight' ? 1 : 4)) % 5;
    $(`#dice button[data-i="${j}"]`).focus();
  }
}

function randomFace() {
  const a = new Uint32Array(1);
  do crypto.getRandomValues(a); while (a[0] >= 4294967292);
  return (a[0] % 6) + 1;
}

function rollOpen() {
  S.dice = S.dice.map((f) => f || randomFace());
  renderDice();
  refresh();
}

/** The start of a turn: no dice yet, two rolls left (the outlook is then the turn's). */
function clearDice() {
  pushHistory();
  S.dice = [null, null, null, null, null];
  S.rollsLeft = 2;
  renderDice();
  refresh();
}

function typeDice(text) {
  const faces = text.replace(/[\s,]+/g, '').split('');
  if (faces.length !== 5 || faces.some((f) => !/^[1-6]$/.test(f))) {
    showMessage(`invalid dice \`${text}\`: give exactly five faces from 1 to 6, e.g. \`1,3,3,5,6\` or \`13356\``);
    return;
  }
  clearMessage();
  S.dice = faces.map(Number);
  renderDice();
  refresh();
}

// ---------------------------------------------------------------- the objective

/** The objective's keys of the batch line: `target`, or `opponents` (each card checked by
 * the server as `--card` is, with its messages). */
async function objectiveFields() {
  if (S.objective === 'target') return { target: Number($('#target').value) };
  if (S.objective !== 'win') return {};
  const opponents = [];
  const items = $$('#opponent-list li');
  for (const [i, li] of items.entries()) {
    if ($('select', li).value === 'final') {
      opponents.push({ final: Number($('input.final', li).value) });
      continue;
    }
    const bonus = Number($('input.bonus', li).value);
    let view;
    try {
      view = await checkCard($('input.card-text', li).value.trim(), Number.isInteger(bonus) ? bonus : -1);
    } catch (e) {
      throw new ApiError(`opponent ${i + 1}: ${e.message}`, e.status);
    }
    opponents.push({ card: cardObject(view), yahtzee_bonus: view.yahtzee_bonus });
  }
  return { opponents };
}

function addOpponent() {
  const list = $('#opponent-list');
  const n = list.children.length + 1;
  const kind = el('select', { 'aria-label': `opponent ${n}: a card or a final score` },
    el('option', { value: 'card', text: 'card' }), el('option', { value: 'final', text: 'final score' }));
  const card = el('input', { type: 'text', class: 'card-text', 'aria-label': `opponent ${n}'s card`, placeholder: 'ones=3,chance=22', onchange: refresh });
  const bonus = el('input', { type: 'number', class: 'bonus', min: 0, value: 0, 'aria-label': `opponent ${n}'s Yahtzee bonuses`, onchange: refresh });
  const final = el('input', { type: 'number', class: 'final', min: 0, value: 250, 'aria-label': `opponent ${n}'s final score`, hidden: true, onchange: refresh });
  const li = el('li', {}, kind, card, bonus, final,
    el('button', { type: 'button', class: 'secondary', text: 'Remove', 'aria-label': `remove opponent ${n}`, onclick: () => { li.remove(); refresh(); } }));
  kind.addEventListener('change', () => {
    const isFinal = kind.value === 'final';
    card.hidden = isFinal;
    bonus.hidden = isFinal;
    final.hidden = !isFinal;
    refresh();
  });
  list.append(li);
  card.focus();
}

// ---------------------------------------------------------------- advice

/** The position as a batch line for /api/advise. */
async function query() {
  return Object.assign({
    card: cardObject(S.view),
    yahtzee_bonus: S.view.yahtzee_bonus,
    dice: S.dice,
    rolls_left: S.rollsLeft,
  }, await objectiveFields());
}

/** The start of the turn (no dice yet) as a line for /api/outlook. */
async function startQuery() {
  return Object.assign({
    card: cardObject(S.view),
    yahtzee_bonus: S.view.yahtzee_bonus,
  }, await objectiveFields());
}

async function refresh() {
  const seq = ++S.seq;
  stopOutlook();
  const list = $('#options');
  const summary = $('#summary');
  if (!S.view) return;
  delete list.dataset.query;
  if (S.view.full) {
    list.replaceChildren();
    summary.textContent = `The card is full: final score ${S.view.banked}. Undo, or change the rules to start again.`;
    renderOutlook(null);
    return;
  }
  const open = S.dice.filter((f) => f === null).length;
  if (open > 0) {
    list.replaceChildren();
    summary.textContent = `Roll or enter the ${open === 1 ? 'open die' : open + ' open dice'} (rolls left: ${S.rollsLeft}).`;
    // Before the turn's roll: the distribution from the start of the turn.
    if (open === 5) refreshOutlook(seq, true);
    else renderOutlook(null);
    return;
  }
  try {
    await ensureTable('expected-score');
    if (S.objective === 'target') await ensureTable('target');
    if (S.objective === 'win') await ensureTable('distribution');
    const asked = await query();
    if (seq !== S.seq) return;
    const answer = await api(`/api/advise?${rulesQuery()}`, { method: 'POST', body: asked });
    if (seq !== S.seq) return;
    clearMessage();
    renderOptions(answer);
    // What the list answers, for a reader (or a test) that waits for it.
    $('#options').dataset.query = JSON.stringify(asked);
    refreshOutlook(seq, false);
  } catch (e) {
    if (seq !== S.seq) return;
    list.replaceChildren();
    summary.textContent = '';
    showMessage(e.message);
  }
}

/** The value an option is ranked by, and how it is shown. */
function measure(answer) {
  if ('target' in answer) {
    return {
      head: `P(final ≥ ${answer.target})`,
      value: (o) => o.p_reach,
      show: (o) => chance(o.p_reach, o.reachable, answer.tail),
      second: (o) => fixed(o.expected_final, 2),
      secondHead: 'expected final',
      bar: (o) => o.p_reach,
    };
  }
  if ('opponents' in answer || (answer.options[0] && 'p_win' in answer.options[0])) {
    return {
      head: 'P(win)',
      value: (o) => o.p_win,
      show: (o) => probability(o.p_win),
      second: (o) => fixed(o.expected_final, 2),
      secondHead: 'expected final',
      bar: (o) => o.p_win,
    };
  }
  const best = answer.options[0].expected_final;
  const worst = answer.options[answer.options.length - 1].expected_final;
  const span = best - worst;
  return {
    head: 'expected final',
    value: (o) => o.expected_final,
    show: (o) => fixed(o.expected_final, 2),
    second: (o) => (o.loss <= 1e-9 ? 'best' : '−' + fixed(o.loss, 2)),
    secondHead: 'loss',
    // The best is a full bar, the worst a tenth of one: the gaps in between are to scale.
    bar: (o) => (span > 0 ? 0.1 + (0.9 * (o.expected_final - worst)) / span : 1),
  };
}

function renderOptions(answer) {
  const list = $('#options');
  list.replaceChildren();
  delete list.dataset.query;
  const m = measure(answer);
  const best = answer.options[0];
  if ('target' in answer) {
    $('#summary').textContent = `Best chance of a final score of at least ${answer.target}: ${chance(answer.p_reach, answer.reachable, answer.tail)}, by ${optionLabel(best)} (banked ${answer.banked}, ${Math.max(0, answer.needed)} to go).`;
  } else if ('opponents' in answer) {
    const them = answer.opponents.map((o, i) => o.finished !== null
      ? `opponent ${i + 1} finished with ${o.finished}`
      : `opponent ${i + 1} ends with ${fixed(o.mean, 1)} on average (from ${o.min} to ${o.max})`).join('; ');
    $('#summary').textContent = `Best chance of winning: ${probability(answer.p_win)}, by ${optionLabel(best)} (banked ${answer.banked}; ${them}; ${answer.model}).`;
  } else {
    $('#summary').textContent = `Best: ${optionLabel(best)}, expected final score ${fixed(best.expected_final, 2)} (banked ${answer.banked}).`;
  }
  list.append(el('li', { class: 'options-legend', 'aria-hidden': 'true' },
    el('span', { text: 'option' }), el('span', { text: '' }), el('span', { text: m.head }), el('span', { text: m.secondHead })));
  answer.options.forEach((o, i) => {
    const fill = el('span');
    fill.style.width = `${Math.max(0, Math.min(1, m.bar(o))) * 100}%`;
    const label = optionLabel(o);
    const b = el('button', {
      type: 'button', class: 'option' + (i === 0 ? ' best' : ''),
      'data-rank': i + 1, 'data-kind': o.kind, 'data-label': label,
      'data-keep': o.kind === 'keep' ? o.keep.join(',') : null,
      'data-category': o.kind === 'score' ? o.category : null,
      'data-value': String(m.value(o)),
      'data-expected': String(o.expected_final),
      'aria-label': `${i + 1}. ${label}: ${m.head} ${m.show(o)}, ${m.secondHead} ${m.second(o)}. Select to play it.`,
      onclick: () => applyOption(o),
    }, el('span', { class: 'label', text: `${i + 1}. ${label}` }),
    el('span', { class: 'bar', 'aria-hidden': 'true' }, fill),
    el('span', { class: 'value', text: m.show(o) }),
    el('span', { class: 'loss', text: m.second(o) }));
    list.append(el('li', {}, b));
  });
}

async function applyOption(o) {
  clearMessage();
  if (o.kind === 'keep') {
    pushHistory();
    if (o.keep.length === 5) {
      S.rollsLeft = 0; // stop rolling: the boxes are the options now
    } else {
      S.dice = o.keep.concat(Array(5 - o.keep.length).fill(null));
      S.rollsLeft -= 1;
    }
    renderDice();
    const first = $('#dice button.unknown') || $('#dice button');
    if (first) first.focus();
    refresh();
    return;
  }
  try {
    const view = await checkCard(S.view.card, S.view.yahtzee_bonus, { box: o.category, dice: S.dice });
    pushHistory();
    S.view = view;
    S.dice = [null, null, null, null, null];
    S.rollsLeft = 2;
    renderCard();
    renderDice();
    $('#roll-open').focus();
    refresh();
  } catch (e) {
    showMessage(e.message);
  }
}

function undo() {
  const last = S.history.pop();
  if (!last) return;
  S.view = last.view;
  S.dice = last.dice;
  S.rollsLeft = last.rollsLeft;
  S.editing = null;
  $('#undo').disabled = S.history.length === 0;
  renderCard();
  renderDice();
  refresh();
}

// ---------------------------------------------------------------- the outlook

/** The chart's caption before an answer. */
const OUTLOOK_HINT = 'The exact distribution of the final score from here, under the chosen objective: '
  + 'every choice the best for the average, for the chance of reaching the target, or for the chance of beating the opponents.';

/** The call for the outlook under way, stopped when the position or the objective changes
 * (the server then stops its computation if no one else waits for it). */
let outlookCall = null;

function stopOutlook() {
  if (outlookCall) outlookCall.abort();
  outlookCall = null;
  $('#outlook-progress').hidden = true;
}

/** The tables an outlook of the objective needs besides the strategy table. */
function outlookTables() {
  if (S.objective === 'target') return ['target'];
  return ['distribution'];
}

/** The distribution of the final score from the position (or from the start of the turn)
 * under the objective: at once when its tables are loaded; under expected-score play, after
 * the player asks for it when its table is not built yet (building it takes a while). The
 * target and win policies take a pass through the rest of the game, whose progress is shown. */
async function refreshOutlook(seq, turnStart) {
  const button = $('#outlook-show');
  button.hidden = true;
  stopOutlook();
  const call = new AbortController();
  outlookCall = call;
  try {
    if (S.objective === 'ev') {
      const all = await api('/api/status');
      const t = all.tables.find((x) => x.rules === S.rules && x.upper_first === S.upperFirst
        && x.objective === 'distribution');
      if (!t || t.state === 'idle') {
        if (seq === S.seq) {
          renderOutlook(null);
          button.hidden = false;
        }
        return;
      }
    }
    await ensureTable('expected-score');
    for (const t of outlookTables()) await ensureTable(t);
    const body = turnStart ? await startQuery() : await query();
    if (seq !== S.seq || call.signal.aborted) return;
    // The chart shown is of the position before: faded until the answer comes.
    $('#outlook').classList.add('stale');
    $('#outlook-text').classList.add('stale');
    delete $('#outlook').dataset.query;
    const watching = watchOutlook(call.signal);
    const answer = await api(`/api/outlook?${rulesQuery()}`, { method: 'POST', body, signal: call.signal });
    call.abort();
    await watching;
    if (seq === S.seq) renderOutlook(answer, null, body);
  } catch (e) {
    if (e.name === 'AbortError') return;
    if (seq === S.seq) renderOutlook(null, e.message);
  } finally {
    if (outlookCall === call) outlookCall = null;
  }
}

/** Shows the progress of the outlooks the server computes until `signal` aborts. */
async function watchOutlook(signal) {
  const box = $('#outlook-progress');
  await sleep(200);
  while (!signal.aborted) {
    let all;
    try {
      all = await api('/api/status');
    } catch (e) {
      break;
    }
    if (signal.aborted) break;
    const job = all.outlooks.find((j) => j.rules === S.rules && j.upper_first === S.upperFirst);
    if (job) {
      box.hidden = false;
      const bar = $('#outlook-progress progress');
      const what = job.policy === 'target' ? 'playing for the target' : 'playing to win';
      if (job.state === 'computing' && job.total > 0) {
        $('#outlook-progress span').textContent =
          `Computing the distribution of the final score ${what} (every state to the end of the game): ${job.done} of ${job.total} cards`;
        bar.max = job.total;
        bar.value = job.done;
      } else {
        $('#outlook-progress span').textContent = job.state === 'waiting'
          ? 'Waiting for the computation before this one…'
          : `Preparing the distribution of the final score ${what}…`;
        bar.removeAttribute('value');
      }
    }
    await sleep(300);
  }
  box.hidden = true;
}

async function showOutlook() {
  $('#outlook-show').hidden = true;
  await guarded(async () => {
    await ensureTable('distribution');
    const turnStart = S.dice.every((f) => f === null);
    refreshOutlook(S.seq, turnStart);
  });
}

function renderOutlook(answer, error, asked) {
  const box = $('#outlook');
  box.replaceChildren();
  box.classList.remove('stale');
  $('#outlook-text').classList.remove('stale');
  const text = $('#outlook-text');
  text.textContent = error || '';
  delete box.dataset.query;
  delete box.dataset.policy;
  delete box.dataset.p;
  const caption = $('#outlook-caption');
  if (!answer) {
    caption.textContent = OUTLOOK_HINT;
    return;
  }
  caption.textContent = answer.caption;
  const [p10, p25, p50, p75, p90] = answer.percentiles;
  let chance = '';
  if (answer.policy === 'target') {
    chance = `P(final ≥ ${answer.target}): ${probability(answer.p_at_least_target)}; `;
  } else if (answer.policy === 'win') {
    chance = `P(win): ${probability(answer.p_win)}; `;
  }
  const summary = `${chance}mean ${fixed(answer.mean, 2)}; from ${answer.min} to ${answer.max}; `
    + `percentiles 10%: ${p10}, 25%: ${p25}, median: ${p50}, 75%: ${p75}, 90%: ${p90}.`;
  text.textContent = summary[0].toUpperCase() + summary.slice(1);
  box.append(distributionChart(answer, `${answer.caption} ${text.textContent}`));
  box.dataset.mean = String(answer.mean);
  box.dataset.policy = answer.policy;
  if (answer.policy === 'target') box.dataset.p = String(answer.p_at_least_target);
  if (answer.policy === 'win') box.dataset.p = String(answer.p_win);
  if (asked) box.dataset.query = JSON.stringify(asked);
}

/** A histogram of `answer.pmf` ([[score, p], ...]), with the target marked. */
function distributionChart(answer, title) {
  const pmf = (answer.pmf || []).filter((e) => e[1] > 1e-7);
  const W = 640, H = 200, L = 44, B = 24, T = 8;
  const lo = pmf.length ? pmf[0][0] : 0;
  const hi = pmf.length ? pmf[pmf.length - 1][0] : 1;
  const top = Math.max(...pmf.map((e) => e[1]), 1e-12);
  const x = (s) => L + ((s - lo) / Math.max(1, hi - lo)) * (W - L - 8);
  const y = (p) => H - B - (p / top) * (H - B - T);
  const w = Math.max(1, (W - L - 8) / Math.max(1, hi - lo + 1));
  const bars = pmf.map(([s, p]) => svg('rect', { class: 'bar', x: x(s), y: y(p), width: w, height: H - B - y(p) }));
  const ticks = [];
  const step = Math.max(10, Math.ceil((hi - lo) / 8 / 10) * 10);
  for (let s = Math.ceil(lo / step) * step; s <= hi; s += step) {
    ticks.push(svg('text', { x: x(s), y: H - 6, 'text-anchor': 'middle', text: s }));
  }
  const marks = [];
  if (answer.target !== undefined && answer.target !== null) {
    marks.push(svg('line', { class: 'mark', x1: x(answer.target), x2: x(answer.target), y1: T, y2: H - B }));
  }
  return svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title },
    svg('title', { text: title }),
    svg('line', { class: 'axis', x1: L, x2: W - 4, y1: H - B, y2: H - B }),
    svg('text', { x: 4, y: T + 10, text: probability(top) }),
    bars, ticks, marks);
}

// ---------------------------------------------------------------- rules

async function changeRules() {
  clearMessage();
  S.rules = $('#rules').value;
  S.upperFirst = $('#upper-first').checked;
  S.history = [];
  $('#undo').disabled = true;
  S.editing = null;
  await guarded(async () => {
    S.rulesCard = await api(`/api/rules?${rulesQuery()}`);
    S.view = await checkCard('', 0);
    renderCard();
    renderDice();
    refresh();
  });
}

// ---------------------------------------------------------------- views

function showView(name) {
  for (const v of ['advise', 'play', 'review']) {
    $(`#view-${v}`).hidden = v !== name;
    const tab = $(`#tab-${v}`);
    if (v === name) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
}

// ---------------------------------------------------------------- the game

const G = { view: null, keep: new Set(), rulesCard: null };

async function startGame(ev) {
  ev.preventDefault();
  clearMessage();
  const body = {
    players: $('#players').value,
    dice: $('input[name="dice-mode"]:checked').value,
    coach_threshold: $('#coach-on').checked ? Number($('#coach-threshold').value) : null,
  };
  const seed = $('#seed').value.trim();
  if (seed !== '' && body.dice === 'seeded') body.seed = Number(seed);
  await guarded(async () => {
    await ensureTable('expected-score');
    G.rulesCard = await api(`/api/rules?${rulesQuery()}`);
    G.view = await api(`/api/game?${rulesQuery()}`, { method: 'POST', body });
    G.keep = new Set();
    renderGame();
    const first = $('#game-actions button, #game-dice-text:not([hidden]), #game-cards button.playable');
    if (first) first.focus();
  });
}

async function act(action) {
  clearMessage();
  await guarded(async () => {
    G.view = await api(`/api/game/${G.view.id}`, { method: 'POST', body: action });
    G.keep = new Set();
    renderGame();
  });
}

function deciding() {
  const v = G.view;
  return v && v.expect.kind === 'decision' ? v.expect : null;
}

function renderGame() {
  const v = G.view;
  $('#board').hidden = false;
  $('#board').dataset.lines = v.record_lines;
  $('#board').dataset.state = v.state;
  const d = deciding();
  // The state in words.
  let state;
  if (v.state === 'over') state = v.result;
  else if (v.state === 'left') state = 'The game was left before the end; the record keeps what was played.';
  else if (v.expect.kind === 'dice') state = `${v.expect.player}, type the ${v.expect.count === 1 ? 'die' : v.expect.count + ' dice'} of ${v.expect.what}.`;
  else if (d) {
    state = v.rolls_left > 0
      ? `${d.player}, turn ${v.turn}: select the dice to keep and roll (${v.rolls_left} ${v.rolls_left === 1 ? 'roll' : 'rolls'} left), or select a box to score now.`
      : `${d.player}, turn ${v.turn}: no rolls left, select a box to score.`;
  } else state = '';
  if (v.last_decision && v.last_decision.loss > 0 && v.state === 'playing') {
    state += ` Your last choice, ${v.last_decision.chosen}, cost ${fixed(v.last_decision.loss, 4)} points (best: ${v.last_decision.best}).`;
  }
  $('#game-state').textContent = state;
  renderGameCards();
  // The dice.
  const dice = $('#game-dice');
  dice.replaceChildren();
  const faces = v.dice || (v.kept ? v.kept.concat(Array(5 - v.kept.length).fill(null)) : []);
  faces.forEach((f, i) => {
    const canKeep = d && v.rolls_left > 0;
    const kept = G.keep.has(i);
    dice.append(dieButton(f, {
      'data-i': i,
      class: 'die' + (f ? '' : ' unknown') + (kept ? ' kept' : ''),
      'aria-pressed': canKeep ? String(kept) : null,
      'aria-label': f ? `die ${i + 1}: ${f}${canKeep ? (kept ? ', kept' : ', select to keep') : ''}` : `die ${i + 1}: being rolled`,
      disabled: !canKeep,
      onclick: () => {
        if (G.keep.has(i)) G.keep.delete(i);
        else G.keep.add(i);
        renderGame();
        $(`#game-dice button[data-i="${i}"]`).focus();
      },
    }));
  });
  // The actions.
  const actions = $('#game-actions');
  actions.replaceChildren();
  if (d && v.rolls_left > 0) {
    const keep = [...G.keep].map((i) => v.dice[i]).sort();
    actions.append(el('button', {
      type: 'button', id: 'game-roll',
      text: keep.length ? `Keep ${keep.join(' ')} and roll` : 'Roll all five',
      onclick: () => act({ keep }),
    }));
  }
  const diceForm = $('#game-dice-form');
  diceForm.hidden = v.expect.kind !== 'dice';
  if (v.expect.kind === 'dice') {
    $('#game-dice-label').textContent = `${v.expect.player}: the ${v.expect.count === 1 ? 'die' : v.expect.count + ' dice'} of ${v.expect.what}`;
    $('#game-dice-text').value = '';
  }
  // The log, newest last.
  const log = $('#game-log');
  log.replaceChildren(...v.log.map((l) => el('li', { class: l.kind, text: l.text })));
  log.scrollTop = log.scrollHeight;
  const over = v.state !== 'playing';
  const link = $('#download-record');
  link.href = `/api/game/${v.id}/record`;
  $('#quit-game').disabled = over;
  renderHints();
}

function renderGameCards() {
  const v = G.view;
  const card = G.rulesCard;
  const table = $('#game-cards');
  table.replaceChildren();
  const d = deciding();
  const mover = d ? v.cards.findIndex((c) => c.player === d.player) : -1;
  const head = el('tr', {}, el('th', { scope: 'col', text: 'Box' }),
    v.cards.map((c, i) => el('th', { scope: 'col', class: 'num' + (i === mover ? ' to-move' : ''), text: c.player + (c.kind === 'bot' ? ' (bot)' : '') })));
  const body = el('tbody');
  const upperCount = card.boxes.filter((b) => b.section === 'upper').length;
  card.boxes.forEach((b, i) => {
    body.append(el('tr', {}, el('th', { scope: 'row', text: b.title }), v.cards.map((c, s) => {
      const points = c.boxes[i].points;
      if (s === mover && points === null) {
        return el('td', { class: 'num' }, el('button', {
          type: 'button', class: 'box playable', 'data-box': b.name,
          'aria-label': `score ${b.title} for ${c.player}`, text: 'score',
          onclick: () => act({ score: b.name }),
        }));
      }
      return el('td', { class: 'num', text: points === null ? '–' : points });
    })));
    if (i === upperCount - 1) {
      body.append(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'Upper total' }),
        v.cards.map((c) => el('td', { class: 'num', text: c.upper_threshold ? `${c.upper_total} / ${c.upper_threshold}` : c.upper_total }))));
      if (card.upper_bonus) {
        body.append(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'Upper bonus' }),
          v.cards.map((c) => el('td', { class: 'num', text: c.upper_bonus }))));
      }
    }
  });
  if (card.five_of_a_kind_bonus) {
    body.append(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'Yahtzee bonuses' }),
      v.cards.map((c) => el('td', { class: 'num', text: c.yahtzee_bonus_points }))));
  }
  body.append(el('tr', { class: 'total' }, el('th', { scope: 'row', text: 'Total' }),
    v.cards.map((c) => el('td', { class: 'num', 'data-player': c.player, text: c.banked }))));
  table.append(el('thead', {}, head), body);
}

async function renderHints() {
  const list = $('#game-options');
  list.replaceChildren();
  delete list.dataset.for;
  const d = deciding();
  if (!d || !$('#show-hints').checked) return;
  const id = G.view.id;
  await guarded(async () => {
    const answer = await api(`/api/advise?rules=${G.view.rules}&upper_first=${G.view.upper_first}`, { method: 'POST', body: d.query });
    if (!G.view || G.view.id !== id || deciding() !== d) return;
    const m = measure(answer);
    list.dataset.for = G.view.record_lines;
    answer.options.forEach((o, i) => {
      const fill = el('span');
      fill.style.width = `${m.bar(o) * 100}%`;
      const label = optionLabel(o);
      list.append(el('li', {}, el('button', {
        type: 'button', class: 'option' + (i === 0 ? ' best' : ''), 'data-label': label,
        'aria-label': `${i + 1}. ${label}: expected final ${m.show(o)}, loss ${m.second(o)}. Select to play it.`,
        onclick: () => act(o.kind === 'keep' ? { keep: o.keep } : { score: o.category }),
      }, el('span', { class: 'label', text: `${i + 1}. ${label}` }),
      el('span', { class: 'bar', 'aria-hidden': 'true' }, fill),
      el('span', { class: 'value', text: m.show(o) }),
      el('span', { class: 'loss', text: m.second(o) }))));
    });
  });
}

function enterGameDice(ev) {
  ev.preventDefault();
  const text = $('#game-dice-text').value;
  const faces = text.replace(/[\s,]+/g, '').split('').filter((c) => c !== '');
  if (faces.some((f) => !/^[1-6]$/.test(f))) {
    showMessage(`invalid dice \`${text}\`: give faces from 1 to 6, e.g. \`13356\``);
    return;
  }
  act({ dice: faces.map(Number) });
}

async function reviewGame() {
  if (!G.view) return;
  clearMessage();
  await guarded(async () => {
    const response = await fetch(`/api/game/${G.view.id}/record`);
    if (!response.ok) throw new ApiError((await response.json()).error, response.status);
    const text = await response.text();
    R.text = text;
    R.name = null;
    showView('review');
    await reviewRecord();
    $('#review-title').focus();
  });
}

// ---------------------------------------------------------------- review

/** The record reviewed last (its text, and its file's name when uploaded), reviewed again
 * when the objective changes. */
const R = { text: null, name: null };

/** The query of /api/review for the objective chosen (`yahtzee review`'s `--target T`,
 * `--target off`, `--win`, or nothing: the record's coach's objective). */
function reviewParams() {
  const o = $('input[name="review-objective"]:checked').value;
  if (o === 'expected-score') return '?objective=expected-score';
  if (o === 'target') return `?target=${encodeURIComponent($('#review-target').value.trim())}`;
  if (o === 'win') return '?objective=win';
  return '';
}

/** Reviews `R.text` in the objective chosen, its tables loaded first with their progress. */
async function reviewRecord() {
  let header = null;
  try {
    header = JSON.parse(R.text.split('\n', 1)[0]);
  } catch (e) {
    header = null;
  }
  if (header && typeof header.rules === 'string' && typeof header.upper_first === 'boolean') {
    const o = $('input[name="review-objective"]:checked').value;
    const needs = { target: 'target', win: 'distribution' }[o]
      || (o === 'record' && header.coach_target != null ? 'target' : null)
      || (o === 'record' && header.coach_win ? 'distribution' : null);
    try {
      await ensureTable('expected-score', header.rules, header.upper_first);
      if (needs) await ensureTable(needs, header.rules, header.upper_first);
    } catch (e) {
      // A header of unknown rules: the review says what is wrong with the record.
    }
  }
  try {
    renderReview(await api(`/api/review${reviewParams()}`, { method: 'POST', body: R.text }));
  } catch (e) {
    throw new ApiError(R.name ? `${R.name}: ${e.message}` : e.message, e.status);
  }
}

async function reviewFile(ev) {
  ev.preventDefault();
  clearMessage();
  const file = $('#record-file').files[0];
  if (!file) {
    showMessage('choose a record file first (a .jsonl file of yahtzee play or of this page)');
    return;
  }
  await guarded(async () => {
    R.text = await file.text();
    R.name = file.name;
    await reviewRecord();
  });
}

/** Reviews the last record again when the objective changes. */
async function reviewAgain() {
  if (R.text === null || $('#review-result').hidden) return;
  clearMessage();
  await guarded(reviewRecord);
}

/** The unit of a review's losses: its words, how a loss is written, and the sizes counted. */
function reviewUnit(r) {
  if (r.objective === 'expected-score') {
    return {
      words: 'Decisions priced in expected points, against optimal play.',
      short: 'points',
      show: (x) => fixed(x, 4),
      value: (x) => fixed(x, 2),
      costly: 1,
      top: 0.5,
      sizes: [['optimal', 'optimal'], ['< 0.2', 'under_0_2'], ['0.2 to 1', 'from_0_2_to_1'], ['1 to 5', 'from_1_to_5'], ['5 or more', 'from_5']],
    };
  }
  const words = r.objective === 'target'
    ? `Decisions priced in chance of a final score of ${r.target} or more, against the option best for it: a loss is the chance given away.`
    : `Decisions priced in chance of winning against the other players at the table, against the option best for it: a loss is the chance given away (model: ${r.model}).`;
  return {
    words,
    short: r.objective === 'target' ? `chance of ${r.target}` : 'chance of winning',
    show: (x) => fixed(x, 4),
    value: (x) => probability(x),
    costly: 0.01,
    top: 0.01,
    sizes: [['best', 'optimal'], ['< 0.001', 'under_0_001'], ['0.001 to 0.01', 'from_0_001_to_0_01'], ['0.01 to 0.05', 'from_0_01_to_0_05'], ['0.05 or more', 'from_0_05']],
  };
}

function renderReview(r) {
  const box = $('#review-result');
  box.hidden = false;
  box.dataset.objective = r.objective;
  const u = reviewUnit(r);
  $('#review-title').setAttribute('tabindex', '-1');
  $('#review-title').textContent = `Review: ${r.rules}${r.upper_first ? ' (upper first)' : ''}, ${r.complete ? 'complete game' : 'unfinished game'}${r.cut_off ? `, cut off at line ${r.cut_off}` : ''}`;
  $('#review-unit').textContent = u.words;
  const players = $('#review-players');
  players.replaceChildren(
    el('thead', {}, el('tr', {}, ['player', 'score', 'decisions', `total loss (${u.short})`, `mean loss per decision (${u.short})`, ...u.sizes.map((x) => x[0])]
      .map((h, i) => el('th', { scope: 'col', class: i ? 'num' : '', text: h })))),
    el('tbody', {}, r.players.map((p) => el('tr', { 'data-player': p.player },
      el('th', { scope: 'row', text: p.player + (p.kind === 'bot' ? ' (bot)' : '') + (p.target != null ? `, played for ${p.target}` : '') + (p.policy ? ', played to win' : '') }),
      el('td', { class: 'num', text: p.score }),
      el('td', { class: 'num', text: p.decisions }),
      el('td', { class: 'num total-loss', text: u.show(p.total_loss) }),
      el('td', { class: 'num mean-loss', text: u.show(p.mean_loss) }),
      u.sizes.map(([, key]) => el('td', { class: 'num', 'data-size': key, text: p.by_size[key] }))))));
  const chart = $('#review-chart');
  chart.replaceChildren(lossChart(r, u));
  const decisions = $('#review-decisions');
  decisions.replaceChildren(
    el('thead', {}, el('tr', {}, ['line', 'player', 'turn', 'dice', 'rolls left', 'choice', 'best', `after the choice (${u.short})`, `after the best (${u.short})`, `loss (${u.short})`]
      .map((h, i) => el('th', { scope: 'col', class: [0, 2, 4, 7, 8, 9].includes(i) ? 'num' : '', text: h })))),
    el('tbody', {}, r.decisions.map((d) => el('tr', { class: d.loss >= u.costly ? 'costly' : '' },
      el('td', { class: 'num', text: d.line }),
      el('td', { text: d.player }),
      el('td', { class: 'num', text: d.turn }),
      el('td', { text: d.dice.join(' ') }),
      el('td', { class: 'num', text: d.rolls_left }),
      el('td', { text: d.choice }),
      el('td', { text: d.best }),
      el('td', { class: 'num', text: u.value(d.chosen_value) }),
      el('td', { class: 'num', text: u.value(d.best_value) }),
      el('td', { class: 'num loss', text: u.show(d.loss) })))));
}

/** One bar per decision, its height the loss (in the review's unit), coloured by player. */
function lossChart(r, u) {
  const W = 640, H = 180, L = 48, B = 20, T = 10;
  const n = Math.max(1, r.decisions.length);
  const top = Math.max(u.top, ...r.decisions.map((d) => d.loss));
  const names = r.players.map((p) => p.player);
  const w = (W - L - 4) / n;
  const y = (l) => H - B - (l / top) * (H - B - T);
  const bars = r.decisions.map((d, i) => svg('rect', {
    class: `bar p${names.indexOf(d.player) % 4}`, x: L + i * w, y: y(d.loss), width: Math.max(1, w - 1), height: H - B - y(d.loss),
  }, svg('title', { text: `${d.player}, turn ${d.turn}: ${d.choice} (best ${d.best}), loss ${u.show(d.loss)} (${u.short})` })));
  const legend = names.map((name, i) => svg('text', { x: L + 8 + i * 110, y: H - 4, class: `p${i}`, text: `■ ${name}` }));
  const mean = r.players.map((p) => `${p.player} ${u.show(p.mean_loss)}`).join(', ');
  const label = `Loss of each of ${r.decisions.length} decisions, in ${u.short}; mean loss per decision: ${mean}`;
  return svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label },
    svg('title', { text: label }),
    svg('line', { class: 'axis', x1: L, x2: W - 4, y1: H - B, y2: H - B }),
    svg('text', { x: 2, y: T + 4, text: u.show(top) }),
    svg('text', { x: 2, y: H - B, text: '0' }),
    bars, legend);
}

// ---------------------------------------------------------------- start

async function start() {
  $('#tab-advise').addEventListener('click', () => showView('advise'));
  $('#tab-play').addEventListener('click', () => showView('play'));
  $('#tab-review').addEventListener('click', () => showView('review'));
  $('#rules').addEventListener('change', changeRules);
  $('#upper-first').addEventListener('change', changeRules);
  $('#yahtzee-bonus').addEventListener('change', enterBonus);
  $('#roll-open').addEventListener('click', rollOpen);
  $('#clear-dice').addEventListener('click', clearDice);
  $('#dice-form').addEventListener('submit', (ev) => { ev.preventDefault(); typeDice($('#dice-text').value); });
  $$('input[name="rolls-left"]').forEach((r) => r.addEventListener('change', () => { S.rollsLeft = Number(r.value); refresh(); }));
  $$('input[name="objective"]').forEach((r) => r.addEventListener('change', () => {
    S.objective = r.value;
    $('#opponents').hidden = r.value !== 'win';
    if (r.value === 'win' && $('#opponent-list').children.length === 0) addOpponent();
    refresh();
  }));
  $('#target').addEventListener('change', () => { if (S.objective === 'target') refresh(); });
  $('#add-opponent').addEventListener('click', addOpponent);
  $('#outlook-show').addEventListener('click', showOutlook);
  $('#undo').addEventListener('click', undo);
  $('#new-game').addEventListener('submit', startGame);
  $('#game-dice-form').addEventListener('submit', enterGameDice);
  $('#show-hints').addEventListener('change', renderHints);
  $('#quit-game').addEventListener('click', () => act({ quit: true }));
  $('#review-game').addEventListener('click', reviewGame);
  $('#review-form').addEventListener('submit', reviewFile);
  $$('input[name="review-objective"]').forEach((r) => r.addEventListener('change', reviewAgain));
  $('#review-target').addEventListener('change', () => {
    if ($('input[name="review-objective"]:checked').value === 'target') reviewAgain();
  });
  await guarded(async () => {
    const status = await api('/api/status');
    $('#outlook-section').hidden = !status.outlook;
    // The rules of a rules file the server was started with (`serve --rules PATH`).
    if (![...$('#rules').options].some((o) => o.value === status.rules)) {
      $('#rules').append(el('option', { value: status.rules, text: status.rules }));
    }
    $('#rules').value = status.rules;
    $('#upper-first').checked = status.upper_first;
    await changeRules();
  });
  document.body.setAttribute('data-ready', 'true');
}

start();
