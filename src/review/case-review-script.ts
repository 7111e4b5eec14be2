/**
 * The review page's script. It asks the server for the cohort's index once, then for one case
 * at a time; every string from the output folder is set as text, never parsed as markup.
 * Captures are fetched with the page's token and shown as blob URLs, since the server names a
 * capture by its case and place only. Keys act unless a text box has the focus; Escape leaves it.
 */
export const CASE_REVIEW_SCRIPT = String.raw`
(function () {
  'use strict';
  var doc = document;
  var token = doc.querySelector('meta[name="wbplay-review"]').content;
  var PAGE = 60;
  var index = null;
  var at = -1;
  var detail = null;
  var urls = [];
  var gridUrls = [];
  var gridPage = 0;
  var gridSeq = 0;
  var loadSeq = 0;
  // What is known of each reviewed case's staleness, by place: from its view, a save, or the grid.
  var staleKnown = {};
  function $(id) { return doc.getElementById(id); }
  function el(tag, attrs, children) {
    var node = doc.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, String(attrs[k])); });
    (children || []).forEach(function (c) { if (c !== undefined && c !== null) node.appendChild(typeof c === 'string' ? doc.createTextNode(c) : c); });
    return node;
  }
  function ask(path, body) {
    var init = { headers: { 'x-wbplay-review': token } };
    if (body !== undefined) { init.method = 'POST'; init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (res) {
      if (!res.ok) return res.text().then(function (t) { throw new Error(t || String(res.status)); });
      return res;
    });
  }
  function image(i, n, into) {
    return ask('/api/capture?case=' + i + '&n=' + n).then(function (res) { return res.blob(); }).then(function (blob) {
      var url = URL.createObjectURL(blob);
      into.push(url);
      return url;
    });
  }
  function hasVerdict(c) { return Boolean(c.review && c.review.verdict); }
  function nextOpen(from) {
    for (var k = 1; k <= index.cases.length; k++) {
      var i = (from + k) % index.cases.length;
      if (!hasVerdict(index.cases[i])) return i;
    }
    return -1;
  }
  function progress() {
    var done = index.cases.filter(hasVerdict).length;
    $('progress').textContent = done + ' of ' + index.cases.length + ' cases have a verdict \u00B7 reviewer ' + index.reviewer;
  }
  function seen() {
    var out = {};
    detail.captures.forEach(function (k) { if (k.sha256) out[k.path] = k.sha256; });
    return out;
  }

  // A case's detail and its captures as blob URLs, fetched together.
  function fetchCase(i) {
    return ask('/api/case?case=' + i).then(function (res) { return res.json(); }).then(function (d) {
      var got = [];
      return Promise.all(d.captures.map(function (k, n) {
        return k.sha256 ? image(i, n, got).catch(function () { return null; }) : null;
      })).then(function (list) { return { i: i, detail: d, list: list, urls: got }; });
    });
  }
  // The next case is fetched while this one is looked at, so moving on draws at once; its
  // hashes are asked for again when it is shown, and a capture changed meanwhile redraws it.
  var ahead = null;
  function takeAhead(i) {
    if (ahead && ahead.i === i) { var p = ahead.promise; ahead = null; return p; }
    return null;
  }
  function fetchAhead(i) {
    if (i >= index.cases.length || (ahead && ahead.i === i)) return;
    if (ahead) ahead.promise.then(function (got) { got.urls.forEach(function (u) { URL.revokeObjectURL(u); }); }, function () {});
    ahead = { i: i, promise: fetchCase(i) };
  }
  function sameHashes(a, b) {
    return JSON.stringify(a.captures.map(function (k) { return k.sha256; })) === JSON.stringify(b.captures.map(function (k) { return k.sha256; }));
  }

  function showCase(i, fresh) {
    if (!index.cases.length) { $('case-name').textContent = 'This run has no cases'; return Promise.resolve(); }
    flushComment();
    at = i;
    var c = index.cases[i];
    var seq = ++loadSeq;
    doc.body.setAttribute('data-ready', 'false');
    var early = fresh ? null : takeAhead(i);
    return (early || fetchCase(i)).then(function (got) {
      if (seq !== loadSeq) { got.urls.forEach(function (u) { URL.revokeObjectURL(u); }); return; }
      var d = got.detail;
      detail = d;
      staleKnown[i] = d.stale.length > 0;
      urls.forEach(function (u) { URL.revokeObjectURL(u); });
      urls = got.urls;
      $('case-name').textContent = c.name;
      var status = $('case-status');
      status.textContent = c.status;
      status.className = 'pill ' + c.status;
      $('case-place').textContent = 'case ' + (i + 1) + ' of ' + index.cases.length;
      var fields = $('fields');
      fields.textContent = '';
      Object.keys(c.fields).forEach(function (k) { fields.appendChild(el('dt', {}, [k])); fields.appendChild(el('dd', {}, [c.fields[k]])); });
      var captures = $('captures');
      captures.textContent = '';
      var loads = d.captures.map(function (k, n) {
        var img = el('img', { alt: k.label });
        captures.appendChild(el('figure', {}, [img, el('figcaption', {}, [k.path])]));
        if (!got.list[n]) { img.alt = k.label + ' (missing)'; return Promise.resolve(); }
        img.src = got.list[n];
        return img.decode().catch(function () {});
      });
      if (!d.captures.length) captures.appendChild(el('p', { class: 'place' }, ['This case left no capture.']));
      drawReview();
      $('saved').textContent = '';
      history.replaceState(null, '', '#case=' + (i + 1));
      return Promise.all(loads).then(function () {
        if (seq !== loadSeq) return;
        doc.body.setAttribute('data-ready', 'true');
        fetchAhead(i + 1);
        if (early) ask('/api/case?case=' + i).then(function (res) { return res.json(); }).then(function (now) {
          if (seq === loadSeq && !sameHashes(now, d)) showCase(i, true);
          else staleKnown[i] = now.stale.length > 0;
        }).catch(function () {});
      });
    }).catch(function (e) { $('saved').textContent = 'Could not load the case: ' + e.message; });
  }

  function drawReview() {
    var r = detail.review;
    var verdict = r && r.verdict;
    Array.prototype.forEach.call(doc.querySelectorAll('[data-verdict]'), function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-verdict') === verdict)); });
    $('representative').setAttribute('aria-pressed', String(Boolean(r && r.representative)));
    var badge = $('case-verdict');
    var stale = detail.stale.length > 0;
    badge.textContent = verdict ? verdict + (stale ? ' (stale)' : '') : 'no verdict';
    badge.className = 'badge ' + (verdict || '') + (stale ? ' stale' : '');
    var note = $('stale');
    note.hidden = !stale;
    note.textContent = stale ? 'Stale: ' + detail.stale.join(', ') + ' changed since the verdict of ' + r.reviewer + ' at ' + r.time + '. Look again and give the verdict anew.' : '';
    if (r && r.disagreement) {
      note.hidden = false;
      note.textContent = 'Reviewers disagree: ' + r.disagreement.map(function (d) { return d.reviewer + ' said ' + d.verdict + (d.comment ? ' (' + d.comment + ')' : ''); }).join('; ') + '. Give the verdict that stands.';
    }
    // Text being typed is never replaced by an answer to an earlier change.
    if (doc.activeElement !== $('comment')) $('comment').value = r ? r.comment : '';
    var tags = $('tags');
    tags.textContent = '';
    ((r && r.tags) || []).forEach(function (t) {
      var remove = el('button', { type: 'button', 'aria-label': 'Remove tag ' + t }, ['\u00D7']);
      remove.addEventListener('click', function () { save({ tags: r.tags.filter(function (x) { return x !== t; }) }); });
      tags.appendChild(el('li', {}, [t, remove]));
    });
  }

  function save(change) {
    if (!detail) return Promise.resolve();
    var i = at;
    var body = Object.assign({ case: i, seen: seen() }, change);
    $('saved').textContent = 'Saving\u2026';
    return ask('/api/review', body).then(function (res) { return res.json(); }).then(function (d) {
      var c = index.cases[i];
      c.review = { verdict: d.review.verdict, tags: d.review.tags, representative: d.review.representative, disagreement: Boolean(d.review.disagreement) };
      staleKnown[i] = d.stale.length > 0;
      if (i === at) { detail.review = d.review; detail.stale = d.stale; drawReview(); $('saved').textContent = 'Saved ' + d.review.time; }
      progress();
      refreshTagFilter();
    }).catch(function (e) { $('saved').textContent = 'Not saved: ' + e.message; });
  }
  function flushComment() {
    if (!detail) return;
    var now = $('comment').value;
    var was = detail.pending !== undefined ? detail.pending : detail.review ? detail.review.comment : '';
    if (now === was) return;
    detail.pending = now;
    save({ comment: now });
  }
  // The verdict's key pressed again takes the verdict back; on a stale verdict it gives it anew.
  function verdict(v) {
    var r = detail && detail.review;
    var again = r && r.verdict === v && !(detail.stale && detail.stale.length);
    return save({ verdict: again ? null : v });
  }
  function addTag() {
    var input = $('tag');
    var t = input.value.trim();
    input.value = '';
    if (!t || !detail) return;
    var tags = (detail.review && detail.review.tags) || [];
    if (tags.indexOf(t) < 0) save({ tags: tags.concat([t]) });
  }

  // The grid: the filtered cases a page at a time, the first capture of each as its thumbnail.
  function matches(c, i) {
    var v = $('f-verdict').value, tag = $('f-tag').value, status = $('f-status').value;
    var field = $('f-field').value, value = $('f-value').value.trim().toLowerCase();
    var r = c.review;
    if (v === 'none' && hasVerdict(c)) return false;
    if (v === 'representative' && !(r && r.representative)) return false;
    if (v === 'disagreement' && !(r && r.disagreement)) return false;
    if (v === 'stale' && staleKnown[i] !== true) return false;
    if (['pass', 'fail', 'unsure'].indexOf(v) >= 0 && !(r && r.verdict === v)) return false;
    if (tag && !(r && r.tags.indexOf(tag) >= 0)) return false;
    if (status && c.status !== status) return false;
    if (value) {
      var keys = field ? [field] : Object.keys(c.fields);
      if (!keys.some(function (k) { return String(c.fields[k] === undefined ? '' : c.fields[k]).toLowerCase().indexOf(value) >= 0; })
        && !(field === '' && c.name.toLowerCase().indexOf(value) >= 0)) return false;
    }
    return true;
  }
  function drawGrid() {
    var shown = [];
    index.cases.forEach(function (c, i) { if (matches(c, i)) shown.push(i); });
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    gridPage = Math.min(gridPage, pages - 1);
    $('grid-count').textContent = shown.length + ' of ' + index.cases.length + ' cases';
    $('page-of').textContent = 'page ' + (gridPage + 1) + ' of ' + pages;
    $('page-prev').disabled = gridPage === 0;
    $('page-next').disabled = gridPage >= pages - 1;
    gridUrls.forEach(function (u) { URL.revokeObjectURL(u); });
    gridUrls = [];
    var grid = $('grid');
    grid.textContent = '';
    grid.setAttribute('data-checked', 'false');
    var badges = {};
    var asked = [];
    shown.slice(gridPage * PAGE, gridPage * PAGE + PAGE).forEach(function (i) {
      var c = index.cases[i];
      var img = el('img', { alt: '' });
      var r = c.review;
      var verdictBadge = el('span', { class: 'badge ' + ((r && r.verdict) || '') }, [(r && r.verdict) || 'no verdict']);
      badges[i] = verdictBadge;
      if (r) asked.push(i);
      var marks = el('span', { class: 'marks' }, [
        el('span', { class: 'pill ' + c.status }, [c.status]),
        verdictBadge,
        r && r.representative ? el('span', { class: 'badge' }, ['representative']) : null,
      ]);
      var tile = el('button', { type: 'button', 'data-case': i, 'aria-label': c.name }, [img, el('span', { class: 'name' }, [c.name]), marks]);
      tile.addEventListener('click', function () { showView('case'); showCase(i); });
      grid.appendChild(tile);
      if (c.captures > 0) image(i, 0, gridUrls).then(function (url) { img.src = url; }).catch(function () {});
    });
    // The verdicts shown are checked against their captures now, and marked when stale.
    var drawn = ++gridSeq;
    if (asked.length) ask('/api/stale?cases=' + asked.join(',')).then(function (res) { return res.json(); }).then(function (d) {
      d.checked.forEach(function (i) { staleKnown[i] = d.stale.indexOf(i) >= 0; });
      if (drawn !== gridSeq) return;
      d.stale.forEach(function (i) {
        var b = badges[i];
        var r = index.cases[i].review;
        b.textContent = ((r && r.verdict) || 'representative') + ' (stale)';
        b.className += ' stale';
      });
      grid.setAttribute('data-checked', 'true');
    }).catch(function () {});
    else grid.setAttribute('data-checked', 'true');
  }
  function refreshTagFilter() {
    var select = $('f-tag');
    var chosen = select.value;
    var tags = {};
    index.cases.forEach(function (c) { ((c.review && c.review.tags) || []).forEach(function (t) { tags[t] = true; }); });
    select.textContent = '';
    select.appendChild(el('option', { value: '' }, ['any']));
    Object.keys(tags).sort().forEach(function (t) { select.appendChild(el('option', { value: t }, [t])); });
    select.value = chosen in tags ? chosen : '';
  }
  function showView(which) {
    var grid = which === 'grid';
    if (grid) flushComment();
    $('grid-view').hidden = !grid;
    $('case-view').hidden = grid;
    $('show-grid').setAttribute('aria-pressed', String(grid));
    $('show-case').setAttribute('aria-pressed', String(!grid));
    if (grid) { gridPage = Math.floor(Math.max(0, indexInGrid()) / PAGE); drawGrid(); }
  }
  function indexInGrid() {
    var n = 0;
    for (var i = 0; i < index.cases.length && i < at; i++) if (matches(index.cases[i], i)) n++;
    return n;
  }

  function typing(target) { return target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || target.tagName === 'SELECT'); }
  doc.addEventListener('keydown', function (e) {
    if (!index) return;
    var t = e.target;
    if (typing(t)) {
      if (e.key === 'Escape') { t.blur(); e.preventDefault(); }
      else if (t.id === 'tag' && e.key === 'Enter') { addTag(); e.preventDefault(); }
      else if (t.id === 'comment' && e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { t.blur(); e.preventDefault(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var gridShown = !$('grid-view').hidden;
    var k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    var act = {
      g: function () { showView('grid'); },
      c: function () { showView('case'); },
    };
    if (!gridShown) {
      act.p = function () { verdict('pass'); };
      act.f = function () { verdict('fail'); };
      act.u = function () { verdict('unsure'); };
      act.r = function () { save({ representative: !(detail.review && detail.review.representative) }); };
      act.ArrowRight = act.j = function () { if (at < index.cases.length - 1) showCase(at + 1); };
      act.ArrowLeft = act.k = function () { if (at > 0) showCase(at - 1); };
      act.n = function () { var i = nextOpen(at); if (i >= 0) showCase(i); else $('saved').textContent = 'Every case has a verdict.'; };
      act.m = function () { $('comment').focus(); };
      act.t = function () { $('tag').focus(); };
    } else {
      act.ArrowRight = function () { if (!$('page-next').disabled) { gridPage++; drawGrid(); } };
      act.ArrowLeft = function () { if (!$('page-prev').disabled) { gridPage--; drawGrid(); } };
    }
    if (act[k]) { act[k](); e.preventDefault(); }
  });
  Array.prototype.forEach.call(doc.querySelectorAll('[data-verdict]'), function (b) { b.addEventListener('click', function () { verdict(b.getAttribute('data-verdict')); }); });
  $('representative').addEventListener('click', function () { save({ representative: !(detail.review && detail.review.representative) }); });
  $('previous').addEventListener('click', function () { if (at > 0) showCase(at - 1); });
  $('next').addEventListener('click', function () { if (at < index.cases.length - 1) showCase(at + 1); });
  $('next-open').addEventListener('click', function () { var i = nextOpen(at); if (i >= 0) showCase(i); });
  $('comment').addEventListener('change', flushComment);
  $('show-grid').addEventListener('click', function () { showView('grid'); });
  $('show-case').addEventListener('click', function () { showView('case'); });
  $('page-prev').addEventListener('click', function () { gridPage--; drawGrid(); });
  $('page-next').addEventListener('click', function () { gridPage++; drawGrid(); });
  ['f-tag', 'f-status', 'f-field'].forEach(function (id) { $(id).addEventListener('change', function () { gridPage = 0; drawGrid(); }); });
  $('f-verdict').addEventListener('change', function () {
    gridPage = 0;
    if ($('f-verdict').value !== 'stale') { drawGrid(); return; }
    // Staleness of every reviewed case is asked for when this filter is chosen: it reads their captures.
    $('grid-count').textContent = 'checking the captures of every reviewed case…';
    ask('/api/stale').then(function (res) { return res.json(); }).then(function (d) {
      d.checked.forEach(function (i) { staleKnown[i] = d.stale.indexOf(i) >= 0; });
      drawGrid();
    }).catch(function (e) { $('grid-count').textContent = 'Could not check: ' + e.message; });
  });
  $('f-value').addEventListener('input', function () { gridPage = 0; drawGrid(); });

  ask('/api/cases').then(function (res) { return res.json(); }).then(function (data) {
    index = data;
    var field = $('f-field');
    data.fieldNames.forEach(function (f) { field.appendChild(el('option', { value: f }, [f])); });
    refreshTagFilter();
    progress();
    // A reload resumes where the work is: the first case without a verdict (or the first case).
    var first = data.cases.length && !hasVerdict(data.cases[0]) ? 0 : nextOpen(0);
    return showCase(first >= 0 ? first : 0);
  }).catch(function (e) { $('case-name').textContent = 'Could not load the cases: ' + e.message; });
})();
`;
