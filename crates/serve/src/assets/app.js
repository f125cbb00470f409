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

// `yahtzee serve --lan`: the address opened carries the server's token (`?token=...`). It is
// kept in this tab's session, taken out of the address shown, and sent with every call.
const TOKEN = (() => {
  const url = new URL(window.location.href);
  const given = url.searchParams.get('token');
  try {
    if (given) sessionStorage.setItem('yahtzee.token', given);
    if (given) {
      url.searchParams.delete('token');
      history.replaceState(null, '', url.pathname + url.search + url.hash);
    }
    return sessionStorage.getItem('yahtzee.token');
  } catch (e) {
    return given;
  }
})();

/** The headers every call sends (the token, with `serve --lan`). */
function baseHeaders() {
  return TOKEN ? { 'X-Yahtzee-Token': TOKEN } : {};
}

/** Calls the API: the JSON answer, or an ApiError with the server's message (an aborted
 * call throws its AbortError). */
async function api(path, { method = 'GET', body, signal } = {}) {
  const init = { method, headers: baseHeaders(), signal };
  // Every POST says it carries JSON, with a body or without: the server refuses any other.
  if (method !== 'GET') init.headers['Content-Type'] = 'application/json';
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return jsonOf(await answered(path, init));
}

/** The JSON of an answer (its text as `{error}` when it is not JSON). */
async function jsonOf(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (e) {
    return { error: text };
  }
}

/** `fetch(path, init)` answered with success, else an ApiError with the server's message (an
 * aborted call throws its AbortError). */
async function answered(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError('the server does not answer: is `yahtzee serve` still running?', 0);
  }
  if (!response.ok) {
    const data = await jsonOf(response);
    throw new ApiError(data.error || response.statusText, response.status);
  }
  return response;
}

/** Posts `body` to `path`, whose answer is lines of JSON (`application/x-ndjson`) sent as the
 * server computes them: `onLine(value)` for each line as it arrives (an error before the first
 * line is an ApiError with the server's message, as for `api`). */
async function apiLines(path, { body, signal }, onLine) {
  const init = { method: 'POST', headers: baseHeaders(), signal, body };
  init.headers['Content-Type'] = 'application/json';
  const response = await answered(path, init);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let at;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (text.trim()) onLine(JSON.parse(text));
    }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function showMessage(text) {
  $('#message').textContent = text;
}
function clearMessage() {
  $('#message').textContent = '';
}
/** Shows `message` beside the field `input` (its `#ID-error`, announced: role=alert) and
 * marks the field invalid; the message is brought into view. */
function fieldError(input, message) {
  const field = typeof input === 'string' ? $(input) : input;
  const out = $(`#${field.id}-error`);
  field.setAttribute('aria-invalid', 'true');
  if (!out) {
    showMessage(message);
    return;
  }
  out.textContent = message;
  inView(out);
}
function clearFieldError(input) {
  const field = typeof input === 'string' ? $(input) : input;
  field.removeAttribute('aria-invalid');
  const out = $(`#${field.id}-error`);
  if (out) out.textContent = '';
}
/** Scrolls `e` into view when it is not. */
function inView(e) {
  const r = e.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) e.scrollIntoView({ block: 'nearest' });
}
/** An error that was shown beside its field already. */
class FieldError extends Error {}

/** Waits for `promise`, or throws an AbortError when `signal` aborts first. */
function abortable(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const abort = () => reject(new DOMException('cancelled', 'AbortError'));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject);
  });
}

/** Runs `work`, showing its error (the server's one-line message) instead of throwing. */
async function guarded(work) {
  try {
    return await work();
  } catch (e) {
    if (e instanceof FieldError || e.name === 'AbortError') return undefined;
    showMessage(e instanceof ApiError ? e.message : String(e));
    return undefined;
  }
}

const fixed = (x, d) => Number(x).toFixed(d);
/** A chance as a percent: `86.5%` (one decimal; two significant digits under 0.1%, `< 0.001%`
 * and `> 99.9%` at the ends, `0%` and `100%` exactly). */
function percent(p) {
  if (p === 0) return '0%';
  if (p === 1) return '100%';
  if (p > 0 && p < 0.00001) return '< 0.001%';
  if (p > 0.999 && p < 1) return '> 99.9%';
  if (p < 0.001) return `${(100 * p).toPrecision(2)}%`;
  return `${fixed(100 * p, 1)}%`;
}
/** A chance as the page shows it: a percent. */
const probability = percent;
/** A chance from a table that leaves out a tail (`yahtzee_core::text::chance`). */
function chance(p, reachable, tail) {
  if (p === 0 && reachable && tail > 0) return '< ' + percent(tail);
  return probability(p);
}
/** The title of a box on the card `card` (the page's rules card), else its name. */
function boxTitle(name, card = S.rulesCard) {
  const b = card && card.boxes.find((x) => x.name === name);
  return b ? b.title : name;
}
/** An option of an answer in words, its box named as on the card. */
function optionLabel(o, card = S.rulesCard) {
  if (o.kind === 'keep') {
    if (o.stop_and_score) return 'stop and score ' + boxTitle(o.stop_and_score, card);
    if (o.keep.length === 0) return 'reroll all';
    return 'keep ' + o.keep.join(' ');
  }
  const bonus = o.bonus > 0 ? ` (+${o.bonus} bonus)` : '';
  // Under saved rolls: the re-rolls the box carries forward, as the command line says them.
  const saves = o.saves > 0 ? `, keep ${o.saves} roll${o.saves === 1 ? '' : 's'}` : '';
  return `score ${boxTitle(o.category, card)} for ${o.points}${bonus}${saves}`;
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

/** The number of dice of a game's rules card: five, or six (Maxi Yatzy and other rules
 * files of six dice). */
function diceOf(card) {
  return (card && card.dice) || 5;
}

/** The rolls left at the start of a turn: the rules' rolls a turn less one (2 with three). */
function firstRollsLeft(card = S.rulesCard) {
  return ((card && card.rolls) || 3) - 1;
}

/** True when the page's rules keep the re-rolls a turn leaves unused for later turns
 * (`saved_rolls = true`). */
function savedRolls(card = S.rulesCard) {
  return Boolean(card && card.saved_rolls);
}

/** The most rolls the card's turns played may have saved (the server's, with the card's
 * view): 0 in a game without saved rolls. */
function mostSaved() {
  return savedRolls() && S.view ? S.view.most_saved || 0 : 0;
}

/** The most re-rolls left this turn: the rules' first, and under saved rolls the rolls saved
 * before it. */
function mostRollsLeft() {
  return firstRollsLeft() + (savedRolls() ? S.saved : 0);
}

/** The count in words, as the dice are told: `five`, `six`. */
function diceWord(n) {
  return n === 6 ? 'six' : 'five';
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
  scores: null,         // what each open box would score with the dice entered (/api/card's with_dice)
  dice: [null, null, null, null, null], // null: not rolled yet (a new game asks for the dice)
  rollsLeft: null, // the rules' first once their card is read (2 with three rolls a turn)
  saved: 0,             // under saved rolls: the rolls saved before this turn
  objective: 'ev',
  history: [],
  seq: 0,
  editing: null,        // the box being entered
  editError: null,      // the refusal of the box being entered
  picking: null,        // the die whose face is being picked
  entered: [],          // the dice entered on the keypad, in order (for Erase)
  call: null,           // the advice under way (its AbortController)
  outlook: false,       // true when the server answers /api/outlook
};

// ---------------------------------------------------------------- kept in the browser

/** Where the advisor is kept between visits: the rules, the position, the objective and
 * Undo's history, so that a reload (a phone reloads a tab in the background)
 * loses nothing. */
const SAVED = 'yahtzee.advisor.v1';

function save() {
  if (!S.view) return;
  const data = {
    rules: S.rules,
    upperFirst: S.upperFirst,
    view: S.view,
    dice: S.dice,
    rollsLeft: S.rollsLeft,
    saved: S.saved,
    objective: S.objective,
    target: $('#target').value,
    history: S.history.slice(-60),
  };
  try {
    localStorage.setItem(SAVED, JSON.stringify(data));
  } catch (e) {
    // Storage full or refused: the page works, without memory.
  }
}

function saved() {
  try {
    const data = JSON.parse(localStorage.getItem(SAVED) || 'null');
    return data && typeof data === 'object' && data.view ? data : null;
  } catch (e) {
    return null;
  }
}

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
  return { view: S.view, dice: S.dice.slice(), rollsLeft: S.rollsLeft, saved: S.saved };
}
function pushHistory() {
  S.history.push(snapshot());
  if (S.history.length > 60) S.history.shift();
  $('#undo').disabled = false;
}

// ---------------------------------------------------------------- tables

const loading = new Map();

/** Waits until the server holds the `objective` table of the rules (the page's, or those
 * given), showing its progress; one wait per table, however many ask. */
function ensureTable(objective, rules = S.rules, upperFirst = S.upperFirst, signal = undefined) {
  const key = `rules=${encodeURIComponent(rules)}&upper_first=${upperFirst}&objective=${objective}`;
  if (!loading.has(key)) {
    const p = waitTable(objective, rules, upperFirst).finally(() => loading.delete(key));
    loading.set(key, p);
  }
  return abortable(loading.get(key), signal);
}

async function waitTable(objective, rules, upperFirst) {
  const q = `rules=${encodeURIComponent(rules)}&upper_first=${upperFirst}&objective=${objective}`;
  let status = await api(`/api/load?${q}`, { method: 'POST' });
  const box = $('#status');
  const what = { 'target': 'the target table', 'distribution': 'the table of final-score distributions' }[objective] || 'the strategy table';
  while (status.state !== 'ready') {
    if (status.state === 'failed') {
      box.hidden = !S.call;
      throw new ApiError(status.error, 500);
    }
    if (status.state === 'cancelled') {
      // Cancel stopped the build (the server saved nothing): asked again, it starts anew.
      box.hidden = !S.call;
      throw new DOMException('cancelled', 'AbortError');
    }
    box.hidden = false;
    // Cancel stops a build too (`/api/cancel`).
    $('#cancel').hidden = false;
    const bar = $('#status-progress');
    if (status.state === 'building' && status.total > 0) {
      $('#status-text').textContent =
        `Building ${what} of ${rules} once (${status.build_cost}; it is then kept): ${status.done} of ${status.total} cards${left(status.eta_seconds)}`;
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
  if (!S.call) box.hidden = true;
}

/** The seconds left of a build in words (`, about 57 s left`), from the server's estimate:
 * the build's own pace on this machine. */
function left(seconds) {
  if (seconds === undefined || seconds === null) return '';
  return `, about ${seconds < 90 ? Math.max(1, Math.ceil(seconds)) + ' s' : Math.round(seconds / 60) + ' min'} left`;
}

/** The busy state of the advice under way: its words, a progress bar without end, and
 * Cancel (which stops the call: the server stops a computation whose client is gone). */
function showBusy(text) {
  $('#status').hidden = false;
  $('#status-text').textContent = text;
  $('#status-progress').removeAttribute('value');
  $('#cancel').hidden = false;
}
function hideBusy() {
  $('#status').hidden = true;
}
function cancelWork() {
  if (S.call) S.call.abort();
  if (R.call) R.call.abort();
  stopOutlook();
  // The tables being built for this page stop too (the server saves nothing of them).
  for (const key of loading.keys()) {
    api(`/api/cancel?${key}`, { method: 'POST' }).catch(() => {});
  }
  if (awaited) {
    api(`/api/cancel?${awaited.key}`, { method: 'POST' }).catch(() => {});
    stopAwaiting();
  }
  hideBusy();
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
        type: 'text', inputmode: 'numeric', value: S.editError ? S.editError.text : (points === null ? '' : points),
        id: 'box-input', 'aria-label': `points in ${b.title} (empty: open)`, size: 4,
        'aria-invalid': S.editError ? 'true' : null,
        'aria-describedby': S.editError ? 'box-input-error' : null,
      });
      const form = el('form', { class: 'box-edit' }, input,
        el('button', { type: 'submit', text: 'OK' }),
        el('button', {
          type: 'button', class: 'secondary', text: 'Cancel',
          onclick: () => { S.editing = null; S.editError = null; renderCard(); focusBox(b.name); },
        }));
      form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        enterBox(b.name, input.value.trim());
      });
      input.addEventListener('keydown', (ev) => {
        if (ev.key === 'Escape') {
          ev.stopPropagation();
          S.editing = null;
          S.editError = null;
          renderCard();
          focusBox(b.name);
        }
      });
      cell = el('td', { class: 'num' }, form);
      setTimeout(() => { input.focus(); input.select(); }, 0);
    } else {
      cell = el('td', { class: 'num' }, el('button', {
        type: 'button', class: 'box' + (points === null ? ' open' : ''), 'data-box': b.name,
        'aria-label': `${b.title}: ${points === null ? 'open' : points}`,
        title: `${b.scores}; can hold ${b.possible}`,
        text: points === null ? '–' : points,
        onclick: () => { S.editing = b.name; S.editError = null; renderCard(); },
      }));
    }
    // What the open box would score with the dice entered, muted beside its name.
    const would = points === null && S.scores && S.scores[i];
    const score = would ? el('span', { class: 'would', 'data-would': b.name },
      el('span', { 'aria-hidden': 'true', text: `+${would.points}${would.bonus ? ` +${would.bonus}` : ''}` }),
      el('span', { class: 'visually-hidden', text: `: ${would.points} points with these dice${would.bonus ? `, and a bonus of ${would.bonus}` : ''}` }))
      : null;
    body.append(el('tr', {}, el('th', { scope: 'row' }, b.title, score), cell));
    if (S.editing === b.name && S.editError) {
      body.append(el('tr', { class: 'error-row' }, el('td', { colspan: 2 },
        el('p', { class: 'field-error', id: 'box-input-error', role: 'alert', text: S.editError.message }))));
    }
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
  $('#card-total').textContent = `${view.banked}`;
  $('#card-toggle').setAttribute('aria-label', `Card ${view.banked}: open the score card`);
}

/** The card as a drawer (on a phone): open, the first open box focused; closed, the button
 * that opened it. */
function openCard(open) {
  const panel = $('#card-panel');
  panel.classList.toggle('open', open);
  $('#card-toggle').setAttribute('aria-expanded', String(open));
  if (open) {
    const first = $('#card button.box.open') || $('#card button.box');
    if (first) first.focus();
  } else {
    $('#card-toggle').focus();
  }
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
    S.editError = null;
    fitSaved();
    renderCard();
    renderDice();
    focusBox(name);
    refresh();
  } catch (e) {
    // Beside the box, which stays open with what was typed.
    S.editError = { message: e.message, text };
    renderCard();
    inView($('#box-input-error'));
  }
}

async function enterBonus() {
  clearMessage();
  const field = $('#yahtzee-bonus');
  const text = field.value.trim();
  if (!/^\d+$/.test(text)) {
    fieldError(field, `the Yahtzee bonuses are a whole number from 0 up, not \`${text}\``);
    return;
  }
  try {
    const view = await checkCard(S.view.card, Number(text));
    clearFieldError(field);
    pushHistory();
    S.view = view;
    renderCard();
    refresh();
  } catch (e) {
    fieldError(field, e.message);
  }
}

// ---------------------------------------------------------------- the dice

function renderDice() {
  const box = $('#dice');
  box.replaceChildren();
  S.dice.forEach((face, i) => {
    const b = dieButton(face, {
      'data-i': i,
      class: 'die' + (face ? '' : ' unknown') + (S.picking === i ? ' picking' : ''),
      'aria-label': `die ${i + 1}: ${face ? 'shows ' + face : 'not rolled yet'}`,
      'aria-expanded': String(S.picking === i),
      'aria-controls': 'face-picker',
      onclick: () => pickFace(S.picking === i ? null : i),
      onkeydown: (ev) => dieKey(ev, i),
    });
    box.append(b);
  });
  $('#roll-open').disabled = !S.dice.includes(null);
  const erase = $('#keypad .erase');
  if (erase) erase.disabled = !S.entered.some((i) => S.dice[i] !== null);
  // The counter offers the rolls left of the game: 3 only in a game of four rolls a turn.
  $$('input[name="rolls-left"]').forEach((r) => { r.parentElement.hidden = Number(r.value) > firstRollsLeft(); });
  const radio = $(`input[name="rolls-left"][value="${S.rollsLeft}"]`);
  if (radio) radio.checked = true;
  renderSaved();
  const open = S.dice.filter((f) => f === null).length;
  const all = diceOf(S.rulesCard);
  $('#dice').setAttribute('aria-label', `The ${diceWord(all)} dice: select a die to pick its face, or type 1 to 6 on it`);
  $('#dice-text-label').textContent = open > 0 && open < all
    ? `Type the ${open === 1 ? 'die' : open + ' dice'} re-rolled`
    : `Type the ${all} dice`;
  renderPicker();
}

/** The six faces of the die being picked, under the dice (over what follows: nothing
 * moves). */
function renderPicker() {
  const picker = $('#face-picker');
  const i = S.picking;
  picker.hidden = i === null;
  picker.replaceChildren();
  if (i === null) return;
  picker.setAttribute('aria-label', `The face of die ${i + 1}`);
  for (let f = 1; f <= 6; f++) {
    picker.append(dieButton(f, {
      'data-face': f,
      'aria-label': `${f}`,
      'aria-pressed': String(S.dice[i] === f),
      onclick: () => pickedFace(i, f),
      onkeydown: (ev) => {
        if (ev.key === 'Escape') { ev.stopPropagation(); pickFace(null); $(`#dice button[data-i="${i}"]`).focus(); }
      },
    }));
  }
}

/** Under saved rolls, the rolls saved and the re-rolls left in place of the radios of the
 * rolls left; in other games, the radios as ever. */
function renderSaved() {
  const on = savedRolls();
  $('#rolls-left').hidden = on;
  $('#saved-rolls').hidden = !on;
  if (!on) return;
  setStepper('#saved', S.saved, mostSaved());
  setStepper('#rerolls', S.rollsLeft, mostRollsLeft());
  const turns = S.view ? S.view.boxes.filter((b) => b.points !== null).length : 0;
  $('#saved-hint').textContent = `At most ${mostSaved()} saved after ${turns} turn${turns === 1 ? '' : 's'}. `
    + `This turn may re-roll ${firstRollsLeft()} + ${S.saved} = ${mostRollsLeft()} times; a box filled with re-rolls left saves them for the next turns.`;
}

/** The field `css` showing `value` of 0 to `most`, its - and + marked unusable at the ends. */
function setStepper(css, value, most) {
  const input = $(css);
  input.max = String(most);
  input.value = String(value);
  clearFieldError(input);
  $$(`button.step[data-for="${input.id}"]`).forEach((b) => {
    const end = Number(b.dataset.step) < 0 ? value <= 0 : value >= most;
    b.setAttribute('aria-disabled', String(end));
  });
}

/** The rolls saved before this turn set to `n`: the re-rolls left move with them (the
 * re-rolls used this turn stay used). */
function setSaved(n) {
  const most = mostSaved();
  if (n < 0 || n > most) return;
  S.rollsLeft = Math.max(0, S.rollsLeft + n - S.saved);
  S.saved = n;
  renderDice();
  refresh();
}

/** The re-rolls left this turn set to `n`: 0 to the rules' first and the rolls saved. */
function setRerolls(n) {
  if (n < 0 || n > mostRollsLeft()) return;
  S.rollsLeft = n;
  renderDice();
  refresh();
}

/** The rolls saved or re-rolls left typed in `input`: a whole number in its range, else
 * the reason beside it. */
function typedStep(input) {
  const text = input.value.trim();
  const most = Number(input.max);
  const what = input.id === 'saved'
    ? `the rolls saved are a whole number from 0 to ${most} (${firstRollsLeft()} a turn played at most)`
    : `the re-rolls left are a whole number from 0 to ${most} (the turn's ${firstRollsLeft()} and the ${S.saved} saved)`;
  if (!/^\d{1,3}$/.test(text) || Number(text) > most) {
    fieldError(input, `${what}, not \`${text}\``);
    return;
  }
  clearFieldError(input);
  if (input.id === 'saved') setSaved(Number(text));
  else setRerolls(Number(text));
}

/** The rolls saved and the re-rolls left within what the card and the rules allow (after
 * the card or the rules changed). */
function fitSaved() {
  S.saved = Math.min(savedRolls() ? S.saved : 0, mostSaved());
  if (S.rollsLeft === null || S.rollsLeft > mostRollsLeft()) S.rollsLeft = mostRollsLeft();
}

/** Opens the faces of die `i` (null: closes them). */
function pickFace(i) {
  S.picking = i;
  renderDice();
  if (i !== null) {
    const current = S.dice[i] ? $(`#face-picker button[data-face="${S.dice[i]}"]`) : $('#face-picker button');
    current.focus();
  }
}

/** Die `i` shows `f`: the next die not rolled yet is asked for next. */
function pickedFace(i, f) {
  S.dice[i] = f;
  const next = S.dice.findIndex((x, j) => x === null && j !== i);
  pickFace(next >= 0 ? next : null);
  if (next < 0) $(`#dice button[data-i="${i}"]`).focus();
  refresh();
}

function setDie(i, face) {
  S.dice[i] = face;
  S.picking = null;
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
    const all = S.dice.length;
    const j = (i + (ev.key === 'ArrowRight' ? 1 : all - 1)) % all;
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
  S.picking = null;
  renderDice();
  refresh();
}

/** The start of a turn: no dice yet, two rolls left (three with four rolls a turn, and the
 * rolls saved under saved rolls; the outlook is then the turn's). */
function clearDice() {
  pushHistory();
  S.entered = [];
  S.dice = Array(diceOf(S.rulesCard)).fill(null);
  // Under saved rolls, the turn spends the rolls saved: its re-rolls and theirs.
  S.rollsLeft = mostRollsLeft();
  renderDice();
  refresh();
}

/** The dice typed: all of them (five, or six), or (as at the table) only those re-rolled,
 * which fill the open dice in order. */
function typeDice(text) {
  const field = $('#dice-text');
  const faces = text.replace(/[\s,]+/g, '').split('').filter((f) => f !== '');
  const open = S.dice.filter((f) => f === null).length;
  const all = diceOf(S.rulesCard);
  const fits = faces.length === all || (open > 0 && faces.length === open);
  if (!fits || faces.some((f) => !/^[1-6]$/.test(f))) {
    const word = diceWord(all);
    const want = open > 0 && open < all ? `the ${open} re-rolled dice or all ${word}` : `${word} faces`;
    fieldError(field, `invalid dice \`${text}\`: type ${want}, each from 1 to 6, e.g. \`${'133566'.slice(0, open > 0 && open < all ? open : all)}\``);
    field.select();
    return;
  }
  clearFieldError(field);
  clearMessage();
  if (faces.length === all) {
    S.dice = faces.map(Number);
  } else {
    let k = 0;
    S.dice = S.dice.map((f) => (f === null ? Number(faces[k++]) : f));
  }
  field.value = '';
  S.picking = null;
  S.entered = [];
  renderDice();
  refresh();
}

// ---------------------------------------------------------------- the objective

/** The target typed, checked: a whole number, else the reason beside the field. */
function targetValue() {
  const field = $('#target');
  const text = field.value.trim();
  if (!/^\d{1,6}$/.test(text)) {
    fieldError(field, text === ''
      ? 'type the target final score: a whole number from 0 to 100000, like 250'
      : `the target must be a whole number from 0 to 100000, like 250, not \`${text}\``);
    throw new FieldError('target');
  }
  clearFieldError(field);
  return Number(text);
}

/** The objective's keys of the batch line: `target`, or `opponents`: to win, the other
 * players' cards of the Pad's game (`window.yz.padOpponents`), said beside the objective. */
async function objectiveFields() {
  if (S.objective === 'target') return { target: targetValue() };
  if (S.objective !== 'win') return {};
  const pad = window.yz.padOpponents ? await window.yz.padOpponents() : null;
  const line = $('#opponents-text');
  if (!pad) {
    line.textContent = 'Playing to win takes the other players\' cards from the Pad: add the players there.';
  } else if (pad.view.rules !== S.rules || pad.view.upper_first !== S.upperFirst) {
    line.textContent = `The Pad's game is of ${pad.view.rules}${pad.view.upper_first ? ' (upper section first)' : ''}: to win under these rules, start a game of them on the Pad.`;
  } else if (pad.opponents.length === 0) {
    line.textContent = 'The Pad\'s game has no other player: add the players on the Pad.';
  } else {
    line.textContent = `Against the other players of the Pad's game: ${pad.names.map((n, i) => `${n} ${pad.banked[i]}`).join(', ')} (their cards as the Pad has them).`;
    return { opponents: pad.opponents };
  }
  throw new FieldError('opponents');
}

// ---------------------------------------------------------------- advice

/** The position as a batch line for /api/advise. */
async function query() {
  return Object.assign({
    card: cardObject(S.view),
    yahtzee_bonus: S.view.yahtzee_bonus,
    dice: S.dice,
    rolls_left: S.rollsLeft,
  }, savedRolls() ? { saved: S.saved } : {}, await objectiveFields());
}

/** The start of the turn (no dice yet) as a line for /api/outlook. */
async function startQuery() {
  return Object.assign({
    card: cardObject(S.view),
    yahtzee_bonus: S.view.yahtzee_bonus,
  }, await objectiveFields());
}

/** Marks the options shown as those of the position before (faded, not clickable) or
 * current. */
function stale(on) {
  const list = $('#options');
  list.classList.toggle('stale', on);
  list.inert = on;
  if (on) list.setAttribute('aria-busy', 'true');
  else list.removeAttribute('aria-busy');
}

async function refresh() {
  const seq = ++S.seq;
  stopOutlook();
  if (S.call) S.call.abort();
  S.call = null;
  save();
  const list = $('#options');
  const summary = $('#summary');
  if (!S.view) return;
  delete list.dataset.query;
  delete list.dataset.provisional;
  stopAwaiting();
  renderKept(null);
  updateWakeLock();
  if (S.view.full) {
    stale(false);
    list.replaceChildren();
    summary.textContent = `The card is full: final score ${S.view.banked}. Undo, or change the rules to start again.`;
    renderOutlook(null);
    return;
  }
  refreshScores(seq);
  const open = S.dice.filter((f) => f === null).length;
  if (open > 0) {
    stale(false);
    list.replaceChildren();
    summary.textContent = open === S.dice.length
      ? `Roll, then type the ${S.dice.length} dice or pick each die's face (rolls left: ${S.rollsLeft}).`
      : `Roll the ${open === 1 ? 'open die' : open + ' open dice'}, then type ${open === 1 ? 'it' : 'them'} (rolls left: ${S.rollsLeft}).`;
    // Before the turn's roll: the distribution from the start of the turn.
    if (open === S.dice.length) refreshOutlook(seq, true);
    else renderOutlook(null);
    return;
  }
  const call = new AbortController();
  S.call = call;
  stale(true);
  const busy = setTimeout(() => { if (S.call === call) showBusy('Computing the advice…'); }, 250);
  try {
    // The fields first: a target or an opponent refused is said before any table is built.
    const asked = await query();
    if (seq !== S.seq) return;
    // Under saved rolls the advice reads its card's rows of the table of saved rolls, built
    // by the advice itself when it takes seconds (the server refuses a longer build, saying
    // how to build it once).
    if (!savedRolls()) await ensureTable('expected-score', S.rules, S.upperFirst, call.signal);
    if (seq !== S.seq) return;
    // A target or win question whose table is being built is answered at once with the
    // expected-score advice, marked `provisional`: shown as such, and asked again once the
    // table is ready.
    const answer = await api(`/api/advise?${rulesQuery()}`, { method: 'POST', body: asked, signal: call.signal });
    if (seq !== S.seq) return;
    clearMessage();
    stale(false);
    renderOptions(answer);
    // What the list answers, for a reader (or a test) that waits for it: the exact answer's
    // query, or the provisional one's.
    if (answer.provisional) {
      $('#options').dataset.provisional = JSON.stringify(asked);
      awaitTable(seq, answer.provisional);
      renderOutlook(null);
    } else {
      $('#options').dataset.query = JSON.stringify(asked);
      refreshOutlook(seq, false);
    }
  } catch (e) {
    if (seq !== S.seq) return;
    stale(false);
    list.replaceChildren();
    if (e.name === 'AbortError') {
      summary.textContent = 'Cancelled. Change the position or the objective to ask again.';
    } else if (e instanceof FieldError && e.message === 'opponents') {
      summary.textContent = $('#opponents-text').textContent;
    } else if (e instanceof FieldError) {
      summary.textContent = 'Correct the field marked above to see the advice.';
    } else if (S.objective === 'target' && /^target/.test(e.message)) {
      summary.textContent = '';
      fieldError('#target', e.message);
    } else {
      summary.textContent = '';
      showMessage(e.message);
    }
  } finally {
    clearTimeout(busy);
    if (S.call === call) {
      S.call = null;
      hideBusy();
    }
  }
}

/** What each open box would score with the dice entered, from the server (`/api/card` with
 * `dice`: the core's scoring, bonuses as the advice counts them), shown on the card; none
 * until every die is entered. */
async function refreshScores(seq) {
  const had = S.scores !== null;
  S.scores = null;
  if (had && !S.editing) renderCard();
  if (S.dice.includes(null)) return;
  const body = { card: S.view.card, yahtzee_bonus: S.view.yahtzee_bonus, dice: S.dice };
  try {
    const view = await api(`/api/card?${rulesQuery()}`, { method: 'POST', body });
    if (seq !== S.seq) return;
    S.scores = view.boxes.map((b) => b.with_dice || null);
    if (!S.editing) renderCard();
  } catch (e) {
    // The advice asked for the same dice says what is wrong.
  }
}

/** The value an option is ranked by, how it is shown, its loss against the best, and its bar
 * (the loss, the largest loss shown a full bar). */
function measure(answer) {
  const m = measureOf(answer);
  m.bar = lossBars(answer, m);
  return m;
}

function measureOf(answer) {
  if ('target' in answer) {
    return {
      head: `P(final ≥ ${answer.target})`,
      value: (o) => o.p_reach,
      show: (o) => chance(o.p_reach, o.reachable, answer.tail),
      second: (o) => fixed(o.expected_final, 2),
      secondHead: 'expected final',
      // The chance given away against the best.
      loss: (o) => answer.options[0].p_reach - o.p_reach,
    };
  }
  if ('opponents' in answer || (answer.options[0] && 'p_win' in answer.options[0])) {
    return {
      head: 'P(win)',
      value: (o) => o.p_win,
      show: (o) => probability(o.p_win),
      second: (o) => fixed(o.expected_final, 2),
      secondHead: 'expected final',
      loss: (o) => answer.options[0].p_win - o.p_win,
    };
  }
  const best = answer.options[0].expected_final;
  return {
    head: 'expected final',
    value: (o) => o.expected_final,
    show: (o) => fixed(o.expected_final, 2),
    second: (o) => (o.loss <= 1e-9 ? 'best' : '−' + fixed(o.loss, 2)),
    secondHead: 'loss',
    loss: (o) => best - o.expected_final,
  };
}

/** Each option's bar: its loss against the best, the largest loss shown a full bar (the best
 * none). */
function lossBars(answer, m) {
  const largest = Math.max(0, ...answer.options.map((o) => m.loss(o)));
  return (o) => (largest > 0 ? Math.max(0, m.loss(o)) / largest : 0);
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
  const provisional = answer.provisional;
  if (provisional) {
    $('#summary').textContent = `${provisionalWords(provisional)} ${$('#summary').textContent}`;
  }
  $('#summary').classList.toggle('provisional', Boolean(provisional));
  list.classList.toggle('provisional', Boolean(provisional));
  const bar = m.bar;
  list.append(el('li', { class: 'options-legend', 'aria-hidden': 'true' },
    el('span', { text: 'option' }), el('span', { text: 'bar: the loss, the largest full' }), el('span', { text: m.head }), el('span', { text: m.secondHead })));
  renderKept(best);
  answer.options.forEach((o, i) => {
    const fill = el('span');
    fill.style.width = `${Math.max(0, Math.min(1, bar(o))) * 100}%`;
    const label = optionLabel(o);
    const b = el('button', {
      type: 'button', class: 'option' + (i === 0 ? ' best' : ''),
      'data-rank': i + 1, 'data-kind': o.kind, 'data-label': label,
      'data-keep': o.kind === 'keep' ? o.keep.join(',') : null,
      'data-category': o.kind === 'score' ? o.category : null,
      'data-value': String(m.value(o)),
      'data-expected': String(o.expected_final),
      'aria-describedby': 'options-title',
      onclick: () => applyOption(o),
    }, el('span', { class: 'label', text: `${i + 1}. ${label}` }),
    el('span', { class: 'bar', 'aria-hidden': 'true' }, fill),
    el('span', { class: 'value', text: m.show(o) }),
    el('span', { class: 'loss' + (m.secondHead === 'loss' ? ' is-loss' : ''), text: m.second(o) }));
    list.append(el('li', {}, b));
  });
}

async function applyOption(o) {
  clearMessage();
  if (o.kind === 'keep') {
    pushHistory();
    if (o.keep.length === S.dice.length) {
      S.rollsLeft = 0; // stop rolling: the boxes are the options now (none under saved rolls)
    } else {
      S.dice = o.keep.concat(Array(S.dice.length - o.keep.length).fill(null));
      S.rollsLeft -= 1;
    }
    S.picking = null;
    S.entered = [];
    renderDice();
    // As at the table: the re-rolled dice are typed next.
    $('#dice-text').focus();
    refresh();
    return;
  }
  try {
    const view = await checkCard(S.view.card, S.view.yahtzee_bonus, { box: o.category, dice: S.dice });
    pushHistory();
    S.view = view;
    S.dice = [null, null, null, null, null];
    // Under saved rolls, the re-rolls the box leaves unused are the next turn's rolls saved
    // (the server's `saves`), and the turn spends them with its own.
    if (savedRolls()) S.saved = o.saves || 0;
    S.rollsLeft = mostRollsLeft();
    S.picking = null;
    S.entered = [];
    renderCard();
    renderDice();
    $('#dice-text').focus();
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
  S.saved = last.saved || 0;
  S.editing = null;
  S.editError = null;
  S.picking = null;
  $('#undo').disabled = S.history.length === 0;
  renderCard();
  renderDice();
  refresh();
}

// ---------------------------------------------------------------- provisional advice

/** The table a provisional answer waits for (its `/api/status` key and the advice's seq),
 * watched until it is ready: then the position is asked again, for the exact answer. */
let awaited = null;

const TABLE_WORDS = { target: 'the target table', distribution: 'the table of final-score distributions' };

/** The mark of a provisional answer in words: what it is, until when. */
function provisionalWords(p) {
  const what = p.objective === 'win' ? 'winning' : 'the target';
  if (p.state === 'cancelled') {
    return `Expected-score advice: the build of ${TABLE_WORDS[p.table]} was cancelled, so the advice for ${what} is not ready (change the position or the objective to ask again).`;
  }
  return `Expected-score advice until ${TABLE_WORDS[p.table]} is ready${p.eta_seconds != null ? ` (~${p.eta_seconds < 90 ? Math.max(1, Math.ceil(p.eta_seconds)) + ' s' : Math.round(p.eta_seconds / 60) + ' min'})` : ''}, then the advice for ${what}.`;
}

function stopAwaiting() {
  if (awaited) awaited.stop = true;
  awaited = null;
}

/** Shows the build of the table `p` waits for (the notice at the top of the page, with its
 * progress, its time left and Cancel) and asks the position again once it is ready. */
async function awaitTable(seq, p) {
  stopAwaiting();
  if (p.state === 'cancelled') return;
  const key = `rules=${encodeURIComponent(S.rules)}&upper_first=${S.upperFirst}&objective=${p.table}`;
  const me = { key, stop: false };
  awaited = me;
  const box = $('#status');
  const bar = $('#status-progress');
  while (!me.stop && seq === S.seq) {
    let all;
    try {
      all = await api('/api/status');
    } catch (e) {
      break;
    }
    if (me.stop || seq !== S.seq) break;
    const t = all.tables.find((x) => x.rules === S.rules && x.upper_first === S.upperFirst && x.objective === p.table);
    if (!t || t.state === 'ready') {
      box.hidden = true;
      awaited = null;
      refresh();
      return;
    }
    if (t.state === 'failed' || t.state === 'cancelled') break;
    box.hidden = false;
    $('#cancel').hidden = false;
    const what = TABLE_WORDS[p.table];
    if (t.state === 'building' && t.total > 0) {
      $('#status-text').textContent = `Building ${what} of ${S.rules} once (${t.build_cost}; it is then kept): ${t.done} of ${t.total} cards${left(t.eta_seconds)}. Expected-score advice meanwhile.`;
      bar.max = t.total;
      bar.value = t.done;
    } else {
      $('#status-text').textContent = `Waiting to build ${what} of ${S.rules} (${t.build_cost}${left(t.eta_seconds)}). Expected-score advice meanwhile.`;
      bar.removeAttribute('value');
    }
    await sleep(1000);
  }
  if (awaited === me) {
    awaited = null;
    if (!S.call) box.hidden = true;
  }
}

// ---------------------------------------------------------------- the dice to keep

/** Marks on the dice those the best option keeps (`best`: the best option; null: none). */
function renderKept(best) {
  const buttons = $$('#dice button.die');
  buttons.forEach((b) => { b.classList.remove('kept'); delete b.dataset.keep; });
  if (!best || best.kind !== 'keep') return;
  const left = best.keep.slice();
  buttons.forEach((b, i) => {
    const at = left.indexOf(S.dice[i]);
    if (at < 0) return;
    left.splice(at, 1);
    b.classList.add('kept');
    b.dataset.keep = 'true';
    b.setAttribute('aria-label', `${b.getAttribute('aria-label')}, keep it`);
  });
}

// ---------------------------------------------------------------- the keypad

/** A keypad of the six faces (and Erase), for dice entered without the phone's keyboard:
 * `onFace(f)` for each face tapped, `onErase()` for Erase (left out when not given). The pad
 * may reuse it: `window.yz.keypad`. */
function keypad(onFace, onErase, label = 'Enter the dice: tap each face rolled') {
  const pad = el('div', { class: 'keypad', role: 'group', 'aria-label': label });
  for (let f = 1; f <= 6; f++) {
    const b = dieButton(f, { 'data-face': f, 'aria-label': `${f}`, onclick: () => onFace(f) });
    b.classList.add('key');
    pad.append(b);
  }
  if (onErase) {
    pad.append(el('button', { type: 'button', class: 'secondary key erase', 'aria-label': 'Erase the last die entered', text: '⌫', onclick: onErase }));
  }
  return pad;
}

/** A face tapped on the keypad: the first open die shows it; with no die open, a new roll
 * starts (the other dice open). The advice comes once every die is entered. */
function keyFace(f) {
  clearMessage();
  let i = S.dice.indexOf(null);
  if (i < 0) {
    S.dice = S.dice.map(() => null);
    S.entered = [];
    i = 0;
  }
  S.dice[i] = f;
  S.entered.push(i);
  S.picking = null;
  renderDice();
  refresh();
}

/** Erase: the last die entered on the keypad is open again. */
function keyErase() {
  const i = S.entered.pop();
  if (i === undefined) return;
  S.dice[i] = null;
  renderDice();
  refresh();
}

// ---------------------------------------------------------------- the theme and the screen

const THEME = 'yahtzee.theme';

/** The theme: the system's (`prefers-color-scheme`) unless the switch chose one, kept. */
function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === 'dark' || theme === 'light') root.dataset.theme = theme;
  else delete root.dataset.theme;
  const dark = theme ? theme === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches;
  const button = $('#theme');
  button.setAttribute('aria-pressed', String(dark));
  $('meta[name="theme-color"]').setAttribute('content', dark ? '#12161b' : '#1f5fbf');
}
function storedTheme() {
  try {
    return localStorage.getItem(THEME);
  } catch (e) {
    return null;
  }
}
function switchTheme() {
  const dark = $('#theme').getAttribute('aria-pressed') === 'true';
  const theme = dark ? 'light' : 'dark';
  try {
    localStorage.setItem(THEME, theme);
  } catch (e) {
    // Not kept: the switch works for this visit.
  }
  applyTheme(theme);
}

// ---------------------------------------------------------------- large text

/** Large text (the page's text at 1.5 times the usual size or more: the browser's or the
 * system's text size): `html.large-text`, for which the phone's layout is compact (the header
 * folded into a menu, the advice before the secondary controls). A probe 1rem wide tells. */
function watchTextSize() {
  const probe = el('span', { class: 'rem-probe', 'aria-hidden': 'true' });
  document.body.append(probe);
  const check = () => {
    const large = probe.getBoundingClientRect().width >= 24;
    document.documentElement.classList.toggle('large-text', large);
    if (!large) openTopMenu(false);
  };
  new ResizeObserver(check).observe(probe);
  check();
}

/** The header's menu (shown at large text on a phone): the views, the rules and the theme. */
function openTopMenu(open) {
  $('#top-items').classList.toggle('open', open);
  $('#top-menu').setAttribute('aria-expanded', String(open));
}

/** The screen kept awake during a game (the Screen Wake Lock API, where the browser offers it:
 * a secure context, such as localhost): while a card is being played on the advisor or a game
 * is on in Play, and the page is shown; released when the game ends or the page is hidden. */
let wakeLock = null;
async function updateWakeLock() {
  const advising = !$('#view-advise').hidden && S.view && !S.view.full
    && (S.view.boxes.some((b) => b.points !== null) || S.dice.some((f) => f !== null));
  const playing = !$('#view-play').hidden && G.view && G.view.state === 'playing';
  const want = document.visibilityState === 'visible' && (advising || playing);
  if (!('wakeLock' in navigator)) {
    document.body.dataset.wakeLock = 'unavailable';
    return;
  }
  if (want && !wakeLock) {
    try {
      wakeLock = await navigator.wakeLock.request('screen');
      document.body.dataset.wakeLock = 'held';
      wakeLock.addEventListener('release', () => {
        wakeLock = null;
        document.body.dataset.wakeLock = 'released';
      });
    } catch (e) {
      document.body.dataset.wakeLock = 'refused';
    }
  } else if (!want && wakeLock) {
    const lock = wakeLock;
    wakeLock = null;
    await lock.release().catch(() => {});
    document.body.dataset.wakeLock = 'released';
  }
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
  // Not under saved rolls: a game solved for the highest average alone.
  if (savedRolls()) return;
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
    // Streamed: under the target policy, estimates from simulated games while the exact
    // pass runs, then the exact outlook.
    let answer = null;
    let estimated = 0;
    await apiLines(`/api/outlook?${rulesQuery()}&stream=true`, { body: JSON.stringify(body), signal: call.signal }, (l) => {
      if (l.type === 'error') throw new ApiError(l.error, l.status);
      if (seq !== S.seq) return;
      if (l.type === 'estimate') {
        estimated = l.games;
        renderEstimate(l);
      } else if (l.type === 'outlook') {
        answer = l.outlook;
      }
    });
    if (!answer) throw new ApiError('the distribution ended before its end: ask again', 0);
    call.abort();
    await watching;
    if (seq === S.seq) {
      renderOutlook(answer, null, body);
      // How many games the last estimate shown had (0: none, the answer came at once).
      $('#outlook').dataset.estimated = String(estimated);
    }
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

/** An estimate from simulated games (`line`: games, reach, mean, outlook), shown while the
 * exact distribution is computed: its histogram faded, labelled with the games so far. */
function renderEstimate(line) {
  const box = $('#outlook');
  const answer = line.outlook;
  box.replaceChildren();
  box.classList.remove('stale');
  box.classList.add('estimate');
  $('#outlook-text').classList.remove('stale');
  const label = `Estimate from ${line.games} games`;
  $('#outlook-caption').textContent = `${label} simulated with the target policy, until the exact distribution is computed. ${answer.caption}`;
  const r = line.reach;
  const m = line.mean;
  $('#outlook-text').textContent = `${label}: P(final ≥ ${answer.target}): ${probability(r.share)} `
    + `(95% interval ${probability(r.low)} to ${probability(r.high)}); mean ${fixed(answer.mean, 1)} `
    + `(95% interval ${fixed(m.low, 1)} to ${fixed(m.high, 1)}).`;
  box.append(distributionChart(answer, `${label} (faded): ${$('#outlook-text').textContent}`));
  box.dataset.policy = answer.policy;
  box.dataset.p = String(r.share);
  box.dataset.mean = String(answer.mean);
  box.dataset.games = String(line.games);
}

function renderOutlook(answer, error, asked) {
  const box = $('#outlook');
  box.replaceChildren();
  box.classList.remove('stale', 'estimate');
  delete box.dataset.games;
  delete box.dataset.estimated;
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

/** The width of a chart drawn in `box`: its width on the screen (300 to 640), so that a unit
 * of the drawing is about a CSS pixel and its labels keep their size on a phone. */
function chartWidth(box) {
  return Math.round(Math.max(300, Math.min(640, (box && box.clientWidth) || 640)));
}

/** A step between ticks of about `span / n`: 1, 2 or 5 times a power of ten, at least 1
 * when `whole` (scores are whole numbers). */
function niceStep(span, n, whole) {
  const raw = Math.max(span / n, whole ? 1 : 1e-12);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * p).find((k) => k >= raw) || 10 * p;
  return whole ? Math.max(1, Math.round(step)) : step;
}

/** A histogram of `answer.pmf` ([[score, p], ...]), with axis titles, whole-number ticks of
 * the score, and the mean, the median and the target marked. */
function distributionChart(answer, title) {
  const pmf = (answer.pmf || []).filter((e) => e[1] > 1e-7);
  const W = chartWidth($('#outlook')), H = 230, L = 56, B = 44, T = 22, R = 10;
  const lo = pmf.length ? pmf[0][0] : 0;
  const hi = pmf.length ? pmf[pmf.length - 1][0] : 1;
  const pTop = Math.max(...pmf.map((e) => e[1]), 1e-12);
  const yStep = niceStep(pTop, 4, false);
  const top = Math.ceil(pTop / yStep) * yStep;
  const x = (s) => L + ((s - lo) / Math.max(1, hi - lo + 1)) * (W - L - R);
  const y = (p) => H - B - (p / top) * (H - B - T);
  const w = Math.max(1, (W - L - R) / Math.max(1, hi - lo + 1));
  const bars = pmf.map(([s, p]) => svg('rect', { class: 'bar', x: x(s), y: y(p), width: w, height: H - B - y(p) }));
  const ticks = [];
  const step = niceStep(hi - lo, Math.max(4, Math.round(W / 80)), true);
  for (let s = Math.ceil(lo / step) * step; s <= hi; s += step) {
    ticks.push(svg('line', { class: 'axis', x1: x(s) + w / 2, x2: x(s) + w / 2, y1: H - B, y2: H - B + 4 }));
    ticks.push(svg('text', { x: x(s) + w / 2, y: H - B + 16, 'text-anchor': 'middle', text: s }));
  }
  const digits = yStep >= 0.01 ? 2 : yStep >= 0.001 ? 3 : 4;
  for (let p = 0; p <= top + yStep / 2; p += yStep) {
    ticks.push(svg('text', { x: L - 4, y: y(p) + 4, 'text-anchor': 'end', text: `${fixed(100 * p, digits - 2)}%` }));
    ticks.push(svg('line', { class: 'axis', x1: L - 3, x2: L, y1: y(p), y2: y(p) }));
  }
  const marks = [];
  const mark = (score, cls, label, anchor) => {
    const at = x(score) + w / 2;
    marks.push(svg('line', { class: cls, x1: at, x2: at, y1: T - 4, y2: H - B }));
    marks.push(svg('text', { x: at + (anchor === 'end' ? -3 : 3), y: T - 8, 'text-anchor': anchor, text: label }));
  };
  const median = answer.percentiles ? answer.percentiles[2] : null;
  const meanLeft = median !== null && answer.mean < median;
  mark(answer.mean, 'mean', `mean ${fixed(answer.mean, 1)}`, meanLeft ? 'end' : 'start');
  if (median !== null) mark(median, 'median', `median ${median}`, meanLeft ? 'start' : 'end');
  if (answer.target !== undefined && answer.target !== null) {
    marks.push(svg('line', { class: 'mark', x1: x(answer.target), x2: x(answer.target), y1: T, y2: H - B }));
    marks.push(svg('text', { x: x(answer.target) + 3, y: T + 12, text: `target ${answer.target}` }));
  }
  return svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title },
    svg('title', { text: title }),
    svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }),
    svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }),
    svg('text', { class: 'axis-title', x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', text: 'final score' }),
    svg('text', { class: 'axis-title', x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})`, text: 'chance' }),
    bars, ticks, marks);
}

// ---------------------------------------------------------------- rules

/** The rules chosen: a card with points on it is wiped by new rules, so the player is asked
 * first (No keeps the rules and the card). */
async function rulesChosen() {
  const wipes = S.view && (S.view.boxes.some((b) => b.points !== null) || S.view.yahtzee_bonus > 0);
  if (wipes) {
    const name = $('#rules').selectedOptions[0].textContent + ($('#upper-first').checked ? ', upper section first' : '');
    if (!window.confirm(`Change the rules to ${name}? The score card (${S.view.banked} points) is cleared, and Undo with it.`)) {
      $('#rules').value = S.rules;
      $('#upper-first').checked = S.upperFirst;
      return;
    }
  }
  await changeRules();
}

/** The rules of the selects: a new card, or (`keep`: a position kept in the browser, under
 * these rules) that position, checked by the server again. */
async function changeRules(keep = null) {
  clearMessage();
  S.rules = $('#rules').value;
  S.upperFirst = $('#upper-first').checked;
  S.history = [];
  $('#undo').disabled = true;
  S.editing = null;
  S.editError = null;
  S.picking = null;
  await guarded(async () => {
    S.rulesCard = await api(`/api/rules?${rulesQuery()}`);
    S.view = null;
    if (keep) {
      try {
        S.view = await checkCard(keep.view.card, keep.view.yahtzee_bonus);
        const dice = Array.isArray(keep.dice) && keep.dice.length === diceOf(S.rulesCard)
          && keep.dice.every((f) => f === null || (Number.isInteger(f) && f >= 1 && f <= 6));
        if (dice) S.dice = keep.dice;
        S.saved = Number.isInteger(keep.saved) && keep.saved >= 0 ? keep.saved : 0;
        fitSaved();
        if (keep.rollsLeft >= 0 && keep.rollsLeft <= mostRollsLeft()) S.rollsLeft = keep.rollsLeft;
        if (Array.isArray(keep.history)) S.history = keep.history.filter((h) => h && h.view && Array.isArray(h.dice));
        $('#undo').disabled = S.history.length === 0;
        if (typeof keep.target === 'string') $('#target').value = keep.target;
        if (['ev', 'target', 'win'].includes(keep.objective)) {
          S.objective = keep.objective;
          $(`input[name="objective"][value="${S.objective}"]`).checked = true;
          $('#opponents').hidden = S.objective !== 'win';
        }
      } catch (e) {
        S.view = null;
      }
    }
    if (!S.view) {
      S.view = await checkCard('', 0);
      S.saved = 0;
    }
    // A game of saved rolls is solved for the highest average alone: no other objective,
    // nor a distribution of the final score.
    $('#objective').hidden = savedRolls();
    $('#outlook-section').hidden = !S.outlook || savedRolls();
    if (savedRolls() && S.objective !== 'ev') {
      S.objective = 'ev';
      $('input[name="objective"][value="ev"]').checked = true;
      $('#opponents').hidden = true;
    }
    // Dice of another game (five kept from a game of five, the rules now of six): a new turn.
    if (S.dice.length !== diceOf(S.rulesCard)) {
      S.dice = Array(diceOf(S.rulesCard)).fill(null);
      S.rollsLeft = firstRollsLeft();
    }
    // No rolls left kept from before, or more than the game has: the game's first (and
    // no rolls saved beyond what the card's turns allow).
    fitSaved();
    renderCard();
    renderDice();
    refresh();
  });
}

// ---------------------------------------------------------------- views

function showView(name) {
  for (const v of ['advise', 'pad', 'play', 'review']) {
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
  try {
    G.view = await api(`/api/game/${G.view.id}`, { method: 'POST', body: action });
    G.keep = new Set();
    renderGame();
  } catch (e) {
    const message = e instanceof ApiError ? e.message : String(e);
    // A refused entry of dice: beside the dice typed, which stay to be corrected.
    if (action.dice) fieldError('#game-dice-text', message);
    else showMessage(message);
  }
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
  const faces = v.dice || (v.kept ? v.kept.concat(Array(diceOf(G.rulesCard) - v.kept.length).fill(null)) : []);
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
      text: keep.length ? `Keep ${keep.join(' ')} and roll` : `Roll all ${diceWord(diceOf(G.rulesCard))}`,
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
      const label = optionLabel(o, G.rulesCard);
      list.append(el('li', {}, el('button', {
        type: 'button', class: 'option' + (i === 0 ? ' best' : ''), 'data-label': label,
        onclick: () => act(o.kind === 'keep' ? { keep: o.keep } : { score: o.category }),
      }, el('span', { class: 'label', text: `${i + 1}. ${label}` }),
      el('span', { class: 'bar', 'aria-hidden': 'true' }, fill),
      el('span', { class: 'value', text: m.show(o) }),
      el('span', { class: 'loss is-loss', text: m.second(o) }))));
    });
  });
}

function enterGameDice(ev) {
  ev.preventDefault();
  const field = $('#game-dice-text');
  const text = field.value;
  const faces = text.replace(/[\s,]+/g, '').split('').filter((c) => c !== '');
  if (faces.length === 0 || faces.some((f) => !/^[1-6]$/.test(f))) {
    fieldError(field, `invalid dice \`${text}\`: give faces from 1 to 6, e.g. \`13356\``);
    field.select();
    return;
  }
  clearFieldError(field);
  act({ dice: faces.map(Number) });
}

async function reviewGame() {
  if (!G.view) return;
  clearMessage();
  await guarded(async () => {
    const response = await fetch(`/api/game/${G.view.id}/record`, { headers: baseHeaders() });
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
const R = { text: null, name: null, call: null };

/** The query of /api/review for the objective chosen (`yahtzee review`'s `--target T`,
 * `--target off`, `--win`, or nothing: the record's coach's objective). */
function reviewParams() {
  const o = $('input[name="review-objective"]:checked').value;
  if (o === 'expected-score') return '?objective=expected-score';
  if (o === 'target') {
    const text = $('#review-target').value.trim();
    if (!/^\d{1,6}$/.test(text)) {
      fieldError('#review-target', `the target must be a whole number from 0 to 100000, like 200, not \`${text}\``);
      throw new FieldError('target');
    }
    clearFieldError('#review-target');
    return `?target=${text}`;
  }
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
  const params = reviewParams();
  const call = new AbortController();
  R.call = call;
  $('#review-result').classList.add('stale');
  const busy = setTimeout(() => { if (R.call === call) showBusy('Reviewing the game: every decision is priced…'); }, 250);
  // The review comes decision by decision (the last turns first: priced to win, the first
  // turns take longest), shown as it comes, then whole.
  const priced = [];
  let unit = null;
  let review = null;
  let count = 0;
  let total = 0;
  const progress = (text, done, of) => {
    if (R.call !== call) return;
    showBusy(text);
    const bar = $('#status-progress');
    bar.max = Math.max(1, of);
    bar.value = done;
  };
  try {
    const path = `/api/review${params}${params ? '&' : '?'}stream=true`;
    await apiLines(path, { body: R.text, signal: call.signal }, (l) => {
      if (l.type === 'error') throw new ApiError(l.error, l.status);
      if (R.call !== call) return;
      if (l.type === 'waiting') {
        showBusy('Reviewing the game: waiting for the computations before it…');
      } else if (l.type === 'started') {
        unit = reviewUnit(l);
        total = l.total;
        progress(`Reviewing the game: ${total} decisions to price, the last turns first…`, 0, total);
        renderPartialReview(priced, total, unit);
      } else if (l.type === 'decision') {
        priced[l.index] = l.decision;
        count += 1;
        progress(`Priced ${l.done} of ${l.total} decisions (the last turns first; each of the first turns priced to win is a solve of the rest of the game)`, l.done, l.total);
        renderPartialReview(priced, total, unit);
      } else if (l.type === 'solving') {
        progress(`Priced ${count} of ${total} decisions; solving the rest of the game for the next turn: ${l.done} of ${l.total} cards`, count, total);
      } else if (l.type === 'review') {
        review = l.review;
      }
    });
    if (!review) throw new ApiError('the review ended before its end: ask again', 0);
    renderReview(review);
    $('#review-result').dataset.streamed = String(count);
  } catch (e) {
    if (e.name === 'AbortError') {
      // Cancelled: what was priced stays, said to be part of the review only.
      if (unit && R.call === call) {
        $('#review-title').textContent = `Review cancelled: ${count} of ${total} decisions priced`;
      }
      throw e;
    }
    throw new ApiError(R.name ? `${R.name}: ${e.message}` : e.message, e.status);
  } finally {
    clearTimeout(busy);
    $('#review-result').classList.remove('stale');
    if (R.call === call) {
      R.call = null;
      hideBusy();
    }
  }
}

async function reviewFile(ev) {
  ev.preventDefault();
  clearMessage();
  const file = $('#record-file').files[0];
  clearFieldError('#record-file');
  if (!file) {
    fieldError('#record-file', 'choose a record file first (a .jsonl file of yahtzee play or of this page)');
    return;
  }
  try {
    R.text = await file.text();
    R.name = file.name;
    await reviewRecord();
  } catch (e) {
    if (e instanceof FieldError || e.name === 'AbortError') return;
    fieldError('#record-file', e instanceof ApiError ? e.message : String(e));
  }
}

// ---------------------------------------------------------------- rating

/** Rates the players of the records chosen (files) or pasted, joined in one body. */
async function rateRecords(ev) {
  ev.preventDefault();
  clearMessage();
  clearFieldError('#rating-text');
  const texts = [];
  for (const file of $('#rating-files').files) texts.push(await file.text());
  const pasted = $('#rating-text').value.trim();
  if (pasted) texts.push(pasted);
  if (!texts.length) {
    fieldError('#rating-text', 'choose record files or paste records first (.jsonl files of yahtzee play or of this page)');
    return;
  }
  const body = texts.map((t) => (t.endsWith('\n') ? t : t + '\n')).join('');
  const busy = setTimeout(() => showBusy('Rating the games: every decision is priced…'), 250);
  try {
    renderRating(await api('/api/rating', { method: 'POST', body }));
  } catch (e) {
    if (e instanceof FieldError || e.name === 'AbortError') return;
    fieldError('#rating-text', e instanceof ApiError ? e.message : String(e));
  } finally {
    clearTimeout(busy);
    hideBusy();
  }
}

/** An estimate of the rating: its mean and 95% interval, in points. */
function estimate(e, d = 2) {
  if (!e) return '–';
  return e.low == null ? fixed(e.mean, d) : `${fixed(e.mean, d)} (${fixed(e.low, d)} to ${fixed(e.high, d)})`;
}

/** A table of rows `[heading, value]`, of one column of figures. */
function figures(label, rows) {
  return el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': label },
    el('table', { class: 'data' }, el('tbody', {}, rows.map(([h, v]) =>
      el('tr', {}, el('th', { scope: 'row', text: h }), el('td', { class: 'num', text: v }))))));
}

/** The losses by kind or stage, or the habits: a table of `columns` over `rows`. */
function lossTable(label, columns, rows) {
  return el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': label },
    el('table', { class: 'data' },
      el('thead', {}, el('tr', {}, columns.map((c, i) => el('th', { scope: 'col', class: i ? 'num' : '', text: c })))),
      el('tbody', {}, rows.map(([h, ...cells]) => el('tr', {}, el('th', { scope: 'row', text: h }),
        cells.map((c) => el('td', { class: 'num', text: c })))))));
}

function renderRating(r) {
  const box = $('#rating-result');
  box.hidden = false;
  $('#rating-title').setAttribute('tabindex', '-1');
  $('#rating-title').textContent = `Rating: ${r.records} ${r.records === 1 ? 'record' : 'records'} of ${r.rules}${r.upper_first ? ' (upper first)' : ''}`;
  $('#rating-summary').textContent = `Losses in expected points against optimal play (optimal expected score ${fixed(r.optimal_score, 2)}), with 95% intervals.`;
  $('#rating-players').replaceChildren(...r.players.map((p) => el('section', { class: 'rating-player', 'data-player': p.player },
    el('h3', { text: `${p.player}${p.kind === 'bot' ? ' (bot)' : ''}: ${p.rating ?? 'no complete game'}` }),
    figures(`${p.player}: figures`, [
      ['class', p.rating ?? '–'],
      ['games (complete)', `${p.games} (${p.complete_games})`],
      ['decisions (sub-optimal)', `${p.decisions} (${p.suboptimal})`],
      ['loss per game', estimate(p.loss_per_game)],
      ['loss per decision', estimate(p.loss_per_decision, 3)],
      ['expected score', estimate(p.expected_score)],
      ['mean score', p.mean_score == null ? '–' : fixed(p.mean_score, 1)],
    ]),
    lossTable(`${p.player}: loss by kind and stage`, ['decisions', 'count', 'sub-optimal', 'loss per decision'],
      [...p.by_kind, ...p.by_stage].map((k) => [k.kind, k.decisions, k.suboptimal, fixed(k.mean_loss, 3)])),
    p.habits.length ? lossTable(`${p.player}: costliest habits`, ['habit', 'times', 'total loss', 'loss a time'],
      p.habits.map((h) => [h.habit, h.count, fixed(h.total_loss, 2), fixed(h.mean_loss, 2)])) : el('p', { text: 'No costly habit.' }))));
  $('#rating-title').focus();
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
    // A chance given away, in percent (points of percent).
    show: (x) => `${fixed(100 * x, 2)}%`,
    value: (x) => probability(x),
    costly: 0.01,
    top: 0.01,
    sizes: [['best', 'optimal'], ['< 0.1%', 'under_0_001'], ['0.1% to 1%', 'from_0_001_to_0_01'], ['1% to 5%', 'from_0_01_to_0_05'], ['5% or more', 'from_0_05']],
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
      .map((h, i) => el('th', { scope: 'col', class: (i ? 'num' : '') + (i > 4 || i === 2 ? ' wide' : ''), text: h })))),
    el('tbody', {}, r.players.map((p) => el('tr', { 'data-player': p.player },
      el('th', { scope: 'row', text: p.player + (p.kind === 'bot' ? ' (bot)' : '') + (p.target != null ? `, played for ${p.target}` : '') + (p.policy ? ', played to win' : '') }),
      el('td', { class: 'num', text: p.score }),
      el('td', { class: 'num wide', text: p.decisions }),
      el('td', { class: 'num total-loss', text: u.show(p.total_loss) }),
      el('td', { class: 'num mean-loss', text: u.show(p.mean_loss) }),
      u.sizes.map(([, key]) => el('td', { class: 'num wide', 'data-size': key, text: p.by_size[key] }))))));
  const chart = $('#review-chart');
  chart.replaceChildren(lossChart(r, u));
  $('#review-decisions').replaceChildren(...decisionRows(r.decisions, u));
}

/** The review of a record while its decisions are priced: those priced so far, in the
 * order played (`priced[index]`), of `total`. */
function renderPartialReview(priced, total, u) {
  const box = $('#review-result');
  box.hidden = false;
  delete box.dataset.objective;
  delete box.dataset.streamed;
  const done = priced.filter(Boolean);
  $('#review-title').textContent = `Review: ${done.length} of ${total} decisions priced so far`;
  $('#review-unit').textContent = u.words;
  $('#review-players').replaceChildren();
  $('#review-chart').replaceChildren();
  $('#review-decisions').replaceChildren(...decisionRows(done, u));
}

/** The head and rows of the table of decisions `decisions`, in the unit `u`. */
function decisionRows(decisions, u) {
  return [
    el('thead', {}, el('tr', {}, ['line', 'player', 'turn', 'dice', 'rolls left', 'choice', 'best', `after the choice (${u.short})`, `after the best (${u.short})`, `loss (${u.short})`]
      .map((h, i) => el('th', { scope: 'col', class: ([0, 2, 4, 7, 8, 9].includes(i) ? 'num' : '') + ([0, 4, 7, 8].includes(i) ? ' wide' : ''), text: h })))),
    el('tbody', {}, decisions.map((d) => el('tr', { class: d.loss >= u.costly ? 'costly' : '' },
      el('td', { class: 'num wide', text: d.line }),
      el('td', { text: d.player }),
      el('td', { class: 'num', text: d.turn }),
      el('td', { text: d.dice.join(' ') }),
      el('td', { class: 'num wide', text: d.rolls_left }),
      el('td', { text: d.choice }),
      el('td', { text: d.best }),
      el('td', { class: 'num wide', text: u.value(d.chosen_value) }),
      el('td', { class: 'num wide', text: u.value(d.best_value) }),
      el('td', { class: 'num loss', text: u.show(d.loss) })))),
  ];
}

/** One bar per decision, its height the loss (in the review's unit), coloured by player. */
function lossChart(r, u) {
  const W = chartWidth($('#review-chart')), H = 200, L = 56, B = 40, T = 10;
  const n = Math.max(1, r.decisions.length);
  const top = Math.max(u.top, ...r.decisions.map((d) => d.loss));
  const names = r.players.map((p) => p.player);
  const w = (W - L - 4) / n;
  const y = (l) => H - B - (l / top) * (H - B - T);
  const bars = r.decisions.map((d, i) => svg('rect', {
    class: `bar p${names.indexOf(d.player) % 4}`, x: L + i * w, y: y(d.loss), width: Math.max(1, w - 1), height: H - B - y(d.loss),
  }, svg('title', { text: `${d.player}, turn ${d.turn}: ${d.choice} (best ${d.best}), loss ${u.show(d.loss)} (${u.short})` })));
  const legend = names.map((name, i) => svg('text', { x: L + 8 + i * 110, y: H - 4, class: `p${i}`, text: `■ ${name}` }));
  const titles = [
    svg('text', { class: 'axis-title', x: W - 4, y: H - B + 14, 'text-anchor': 'end', text: 'decisions, in the order played' }),
    svg('text', { class: 'axis-title', x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})`, text: `loss (${u.short})` }),
  ];
  const mean = r.players.map((p) => `${p.player} ${u.show(p.mean_loss)}`).join(', ');
  const label = `Loss of each of ${r.decisions.length} decisions, in ${u.short}; mean loss per decision: ${mean}`;
  return svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label },
    svg('title', { text: label }),
    svg('line', { class: 'axis', x1: L, x2: W - 4, y1: H - B, y2: H - B }),
    svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }),
    svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end', text: u.show(top) }),
    svg('text', { x: L - 4, y: H - B, 'text-anchor': 'end', text: '0' }),
    bars, legend, titles);
}

// ---------------------------------------------------------------- start

async function start() {
  applyTheme(storedTheme());
  $('#theme').addEventListener('click', switchTheme);
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(storedTheme()));
  watchTextSize();
  $('#top-menu').addEventListener('click', () => openTopMenu(!$('#top-items').classList.contains('open')));
  // A view picked from the menu closes it.
  $$('#top-items .tab').forEach((t) => t.addEventListener('click', () => openTopMenu(false)));
  const pad = keypad(keyFace, keyErase);
  pad.id = 'keypad';
  $('#keypad').replaceWith(pad);
  // The screen kept awake while a game is on: checked at each tap and when the page shows.
  document.addEventListener('visibilitychange', updateWakeLock);
  document.addEventListener('click', () => setTimeout(updateWakeLock, 0));
  // Back from the Pad, playing to win: asked again against the Pad's cards as they are now.
  $('#tab-advise').addEventListener('click', () => {
    showView('advise');
    if (S.objective === 'win') refresh();
  });
  $('#tab-play').addEventListener('click', () => showView('play'));
  $('#tab-review').addEventListener('click', () => showView('review'));
  $('#rules').addEventListener('change', rulesChosen);
  $('#upper-first').addEventListener('change', rulesChosen);
  $('#card-toggle').addEventListener('click', () => openCard(!$('#card-panel').classList.contains('open')));
  $('#card-close').addEventListener('click', () => openCard(false));
  $('#cancel').addEventListener('click', cancelWork);
  document.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape') return;
    if (S.picking !== null) {
      const i = S.picking;
      pickFace(null);
      $(`#dice button[data-i="${i}"]`).focus();
    } else if ($('#card-panel').classList.contains('open')) {
      openCard(false);
    } else if ($('#top-items').classList.contains('open')) {
      openTopMenu(false);
      $('#top-menu').focus();
    }
  });
  document.addEventListener('click', (ev) => {
    // (A tap on a die re-draws the dice: its target is then out of the page.)
    if (S.picking !== null && document.contains(ev.target)
      && !ev.target.closest('#face-picker, #dice')) pickFace(null);
  });
  $('#yahtzee-bonus').addEventListener('change', enterBonus);
  $('#roll-open').addEventListener('click', rollOpen);
  $('#clear-dice').addEventListener('click', clearDice);
  $('#dice-form').addEventListener('submit', (ev) => { ev.preventDefault(); typeDice($('#dice-text').value); });
  $$('input[name="rolls-left"]').forEach((r) => r.addEventListener('change', () => { S.rollsLeft = Number(r.value); refresh(); }));
  $$('button.step').forEach((b) => b.addEventListener('click', () => {
    const n = (b.dataset.for === 'saved' ? S.saved : S.rollsLeft) + Number(b.dataset.step);
    if (b.dataset.for === 'saved') setSaved(n);
    else setRerolls(n);
  }));
  ['#saved', '#rerolls'].forEach((css) => $(css).addEventListener('change', () => typedStep($(css))));
  $$('input[name="objective"]').forEach((r) => r.addEventListener('change', () => {
    S.objective = r.value;
    if (r.value !== 'target') clearFieldError('#target');
    $('#opponents').hidden = r.value !== 'win';
    refresh();
  }));
  $('#target').addEventListener('change', () => {
    if (S.objective === 'target') refresh();
    else save();
  });
  $('#opponents-pad').addEventListener('click', () => $('#tab-pad').click());
  $('#outlook-show').addEventListener('click', showOutlook);
  $('#undo').addEventListener('click', undo);
  $('#new-game').addEventListener('submit', startGame);
  $('#game-dice-form').addEventListener('submit', enterGameDice);
  $('#show-hints').addEventListener('change', renderHints);
  $('#quit-game').addEventListener('click', () => act({ quit: true }));
  $('#review-game').addEventListener('click', reviewGame);
  $('#review-form').addEventListener('submit', reviewFile);
  $('#rating-form').addEventListener('submit', rateRecords);
  $$('input[name="review-objective"]').forEach((r) => r.addEventListener('change', reviewAgain));
  $('#review-target').addEventListener('change', () => {
    if ($('input[name="review-objective"]:checked').value === 'target') reviewAgain();
  });
  await guarded(async () => {
    const status = await api('/api/status');
    S.outlook = status.outlook;
    $('#outlook-section').hidden = !status.outlook;
    // The rules of a rules file the server was started with (`serve --rules PATH`).
    if (![...$('#rules').options].some((o) => o.value === status.rules)) {
      $('#rules').append(el('option', { value: status.rules, text: status.rules }));
    }
    // The position kept in this browser, under its rules; else the server's rules.
    const kept = saved();
    const known = kept && Array.from($('#rules').options).some((o) => o.value === kept.rules);
    $('#rules').value = known ? kept.rules : status.rules;
    $('#upper-first').checked = known ? kept.upperFirst === true : status.upper_first;
    await changeRules(known ? kept : null);
  });
  document.body.setAttribute('data-ready', 'true');
}

/** What the pad view may reuse (issue 47): the chance formatter and the keypad. */
window.yz = { percent, keypad, left };

start();
