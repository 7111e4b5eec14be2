import { COMPARE_SCRIPT } from './html-script.js';

/**
 * The live page's script. It reads the server's events (server-sent events over a fetch, so
 * the stream carries the page's token in a header like every other request), keeps the state
 * they describe and draws it with DOM calls only: every string from a playbook or a server is
 * set as text, never parsed as markup. The comparison views are the report's.
 */
export const UI_SCRIPT = String.raw`
(function () {
  'use strict';
  var doc = document;
  var token = doc.querySelector('meta[name="wbplay-ui"]').content;
  function all(sel, root) { return Array.prototype.slice.call((root || doc).querySelectorAll(sel)); }
  function press(group, button) { all('button', group).forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); }); }
${COMPARE_SCRIPT}
  // el('div', { class: 'x' }, [child, 'text']): attributes as given, strings as text nodes.
  function el(tag, attrs, children) {
    var node = doc.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === 'hidden') node.hidden = true; else node.setAttribute(k, String(v));
    });
    (children || []).forEach(function (c) {
      if (c === undefined || c === null || c === false) return;
      node.appendChild(typeof c === 'string' ? doc.createTextNode(c) : c);
    });
    return node;
  }
  function img(image, cls, alt) { return el('img', { class: cls, src: '/' + image.file, alt: alt, 'data-file': image.file, 'data-pixels': image.pixels }); }
  function duration(ms) {
    if (ms === undefined) return '';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (Math.floor(ms / 100) / 10).toFixed(1) + ' s';
    return Math.floor(ms / 60000) + ' m ' + String(Math.floor(ms / 1000) % 60).padStart(2, '0') + ' s';
  }
  var ICONS = { passed: '\u2714', failed: '\u2716', error: '!', skipped: '\u2013', running: '\u25B6', queued: '\u00B7' };

  var state = null;
  var selected = null; // { case, index }
  var drawnDetail = '';

  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wbplay-ui': token }, body: JSON.stringify(body || {}) });
  }

  // The head: verdict, counts, where the runs go, the step-snapshot switch.
  function drawHead() {
    var phase = state.phase;
    var verdict = doc.getElementById('verdict');
    var word = phase === 'done' ? state.status : phase;
    verdict.className = 'verdict ' + word;
    verdict.textContent = String(word).toUpperCase();
    doc.body.setAttribute('data-phase', phase);
    doc.body.setAttribute('data-run', String(state.run));
    doc.getElementById('summary').textContent = (state.run > 0 ? 'run ' + state.run : '') + (phase === 'done' && state.summary ? ' \u00B7 ' + state.summary : phase === 'running' ? ' \u00B7 running' : '');
    doc.getElementById('where').textContent = 'Workbench: ' + state.workbench + ' \u00B7 reruns when a playbook, an included file or a data file changes';
    doc.getElementById('snapshots').checked = state.snapshots;
    var problems = doc.getElementById('problems');
    problems.hidden = phase !== 'problems';
    problems.replaceChildren();
    if (phase === 'problems') {
      problems.appendChild(el('h2', {}, ['The playbooks did not run: ' + state.problems.length + ' problem' + (state.problems.length === 1 ? '' : 's') + ' (fix and save to run again)']));
      state.problems.forEach(function (p) { problems.appendChild(el('pre', { class: 'problem-text', 'data-code': p.code }, [p.text])); });
    }
    doc.querySelector('.panes').hidden = phase === 'problems';
    var notices = doc.getElementById('notices');
    notices.replaceChildren.apply(notices, state.notices.map(function (n) { return el('li', {}, [n]); }));
  }

  function changed(step) { return step.images.some(function (i) { return i.change === 'changed'; }); }
  function mark(change) { return change ? el('span', { class: 'mark ' + change }, [change]) : null; }

  function stepRow(c, s) {
    var chosen = selected && selected.case === c.key && selected.index === s.index;
    var row = el('li', { class: 'step ' + s.status, 'data-case': c.key, 'data-index': s.index, 'data-status': s.status, 'aria-selected': String(!!chosen), tabindex: 0 }, [
      el('div', { class: 'step-head' }, [
        el('span', { class: 'icon', title: s.status }, [ICONS[s.status] || '?']),
        el('span', { class: 'idx' }, [String(s.index)]),
        el('span', { class: 'kind' }, [s.kind]),
        el('span', { class: 'desc' }, [s.description, changed(s) ? ' ' : '', changed(s) ? mark('changed') : null]),
        el('span', { class: 'loc' }, [s.at]),
        el('span', { class: 'time' }, [s.status === 'skipped' ? 'skipped' : duration(s.durationMs)]),
      ]),
    ]);
    row.addEventListener('click', function () { choose(c.key, s.index); });
    row.addEventListener('keydown', function (e) { if (e.key === 'Enter') choose(c.key, s.index); });
    return row;
  }

  function caseBlock(c) {
    return el('section', { class: 'case ' + c.status, 'data-case': c.key }, [
      el('h2', {}, [el('span', { class: 'pill ' + c.status }, [c.status]), el('span', { class: 'case-name' }, [c.name]), el('span', { class: 'where' }, [c.playbook]), el('span', { class: 'dur' }, [duration(c.durationMs)])]),
      el('ol', { class: 'steps' }, c.steps.map(function (s) { return stepRow(c, s); })),
    ]);
  }

  function drawCases() {
    var list = doc.getElementById('cases');
    list.replaceChildren.apply(list, state.cases.map(caseBlock));
  }

  function findCase(key) { return state.cases.find(function (c) { return c.key === key; }); }
  function findStep(sel) {
    var c = sel && findCase(sel.case);
    return c ? { c: c, s: c.steps.find(function (s) { return s.index === sel.index; }) } : null;
  }

  function choose(caseKey, index) {
    selected = { case: caseKey, index: index };
    all('#cases .step').forEach(function (r) { r.setAttribute('aria-selected', String(r.getAttribute('data-case') === caseKey && Number(r.getAttribute('data-index')) === index)); });
    drawDetail(true);
  }

  // An image at full resolution on click: fitted first, its natural size after a click.
  function fullImage(image, label) {
    var box = el('div', { class: 'full' }, [el('div', { class: 'frame' }, [img(image, 'shown', label)])]);
    box.querySelector('img').addEventListener('click', function () { box.classList.toggle('natural'); });
    return box;
  }

  function compareView(before, after, diff, names, numbers) {
    function cell(image, title, cls) {
      return el('figure', {}, [el('figcaption', {}, [title]), image ? el('div', { class: 'frame' }, [img(image, cls, title)]) : el('div', { class: 'frame empty' }, ['none'])]);
    }
    var box = el('div', { class: 'compare', 'data-before': names[0], 'data-after': names[1] }, [
      el('div', { class: 'compare-bar' }, [
        el('div', { class: 'seg modes', role: 'group', 'aria-label': 'View' }, [['side', 'Side by side'], ['slider', 'Slider'], ['blink', 'Blink']].map(function (m, i) {
          return el('button', { type: 'button', 'data-mode': m[0], 'aria-pressed': String(i === 0) }, [m[1]]);
        })),
        el('div', { class: 'seg zooms', role: 'group', 'aria-label': 'Zoom' }, ['fit', '1', '2', '4'].map(function (z) {
          return el('button', { type: 'button', 'data-zoom': z, 'aria-pressed': String(z === 'fit') }, [z === 'fit' ? 'Fit' : z + '\u00D7']);
        })),
        el('span', { class: 'numbers' }, [numbers || '']),
      ]),
      el('div', { class: 'view side', 'data-view': 'side' }, [cell(before, names[0], 'img-expected'), cell(after, names[1], 'img-actual'), cell(diff, 'Diff', 'img-diff')]),
      el('div', { class: 'view', 'data-view': 'slider', hidden: true }, [
        el('figure', {}, [el('div', { class: 'frame' }, [el('div', { class: 'swipe' }, [img(before, 'under', names[0]), el('div', { class: 'over' }, [img(after, 'over-img', names[1])]), el('div', { class: 'handle' })])])]),
        el('div', { class: 'slider-controls' }, [el('span', {}, [names[0]]), el('input', { type: 'range', min: 0, max: 100, value: 50, 'aria-label': 'Swipe between the two images' }), el('span', {}, [names[1]])]),
      ]),
      el('div', { class: 'view', 'data-view': 'blink', hidden: true }, [
        el('div', { class: 'blink-label expected' }, [names[0]]),
        el('figure', {}, [el('div', { class: 'frame' }, [el('div', { class: 'blink', title: 'Click to pause or resume' }, [img(before, 'b-expected', names[0]), img(after, 'b-actual', names[1])])])]),
      ]),
    ]);
    initCompare(box);
    return box;
  }

  function captureBlock(image, step) {
    var title = el('div', { class: 'title' }, [el('b', {}, [image.kind]), el('span', { class: 'mono' }, [image.label]), mark(image.change), el('a', { href: '/' + image.image.file, target: '_blank', rel: 'noopener' }, ['full size'])]);
    var body;
    if (image.kind === 'actual') {
      var expected = step.images.find(function (i) { return i.kind === 'expected'; });
      var diff = step.images.find(function (i) { return i.kind === 'diff'; });
      body = expected ? compareView(expected.image, image.image, diff && diff.image, ['Golden', 'This run'], step.check && step.check.numbers) : fullImage(image.image, image.label);
    } else if (image.change === 'changed' && image.previous) {
      body = compareView(image.previous, image.image, image.diff, ['Previous run', 'This run'], 'changed since the previous run');
    } else body = fullImage(image.image, image.label);
    return el('div', { class: 'capture', 'data-kind': image.kind, 'data-change': image.change || '' }, [title, body]);
  }

  function acceptButton(step) {
    var check = step.check;
    if (!check || (!check.key && !check.accepted)) return null;
    var b = el('button', { type: 'button', class: 'accept accept-one' + (check.accepted ? ' accepted' : ''), 'data-checks': check.key || '', disabled: check.accepted ? 'disabled' : false }, [check.accepted ? 'Accepted as golden' : 'Accept as golden']);
    b.addEventListener('click', function () {
      b.disabled = true;
      post('/api/accept', { checks: [check.key] }).then(function (res) {
        if (res.ok) return;
        return res.text().then(function (t) { b.disabled = false; b.textContent = 'Not accepted: ' + t; });
      });
    });
    return b;
  }

  function stepDetail(c, s) {
    var parts = [
      el('h2', {}, ['Step ' + s.index + ' \u00B7 ' + s.kind]),
      el('div', { class: 'sub' }, [s.description + ' \u00B7 ' + s.at + ' \u00B7 ' + s.status + (s.durationMs !== undefined ? ' in ' + duration(s.durationMs) : '')]),
    ];
    if (s.problem) parts.push(el('div', { class: 'problem' }, [el('div', {}, [el('code', {}, [s.problem.code]), s.problem.message]), s.problem.hint ? el('div', { class: 'hint' }, ['Hint: ' + s.problem.hint]) : null]));
    if (s.skippedReason) parts.push(el('div', { class: 'skip-reason' }, ['Skipped: ' + s.skippedReason]));
    if (s.notices.length) parts.push(el('ul', { class: 'notices' }, s.notices.map(function (n) { return el('li', {}, [n]); })));
    if (s.check) parts.push(el('p', { class: 'review' }, [el('span', { class: 'numbers' }, [s.check.outcome + (s.check.numbers ? ' \u00B7 ' + s.check.numbers : '') + ' \u00B7 golden ' + s.check.golden]), acceptButton(s)]));
    var shown = s.images.filter(function (i) { return i.kind !== 'expected' && i.kind !== 'diff'; });
    if (shown.length) {
      parts.push(el('h3', {}, ['Images']));
      shown.forEach(function (i) { parts.push(captureBlock(i, s)); });
    }
    parts.push(el('h3', {}, ['Windows after this step']));
    if (s.snapshots.length) {
      parts.push(el('div', { class: 'snapshots' }, s.snapshots.map(function (w) {
        return el('figure', { 'data-window': w.window }, [el('figcaption', {}, [w.window]), el('a', { href: '/' + w.image.file, target: '_blank', rel: 'noopener' }, [img(w.image, 'snapshot', w.window)])]);
      })));
    } else {
      parts.push(el('p', { class: 'hint-line' }, [state.snapshots ? (s.status === 'queued' || s.status === 'running' ? 'Captured when the step has run.' : 'No capture of this step: it did not run with step snapshots on.') : 'Turn on step snapshots (above) to capture every window after each step.']));
    }
    return parts;
  }

  // Without a chosen step: every image of the run, the changed ones marked.
  function gallery() {
    var figures = [];
    state.cases.forEach(function (c) {
      c.steps.forEach(function (s) {
        s.images.filter(function (i) { return i.kind !== 'expected' && i.kind !== 'diff'; }).forEach(function (i) {
          var f = el('figure', { 'data-case': c.key, 'data-index': s.index, 'data-kind': i.kind, 'data-change': i.change || '' }, [img(i.image, 'thumb', i.label), el('figcaption', {}, [mark(i.change), i.label])]);
          f.addEventListener('click', function () { choose(c.key, s.index); });
          figures.push(f);
        });
      });
    });
    return [el('h2', {}, ['Images of this run']), el('p', { class: 'sub' }, [figures.length ? 'Choose an image or a step for its details and its changes.' : 'No image yet.']), el('div', { class: 'gallery' }, figures)];
  }

  function drawDetail(force) {
    var found = findStep(selected);
    var key = JSON.stringify([found && found.s, state.snapshots, found ? null : state.cases.map(function (c) { return c.steps.map(function (s) { return s.images; }); })]);
    if (!force && key === drawnDetail) return;
    drawnDetail = key;
    var detail = doc.getElementById('detail');
    detail.replaceChildren.apply(detail, found && found.s ? stepDetail(found.c, found.s) : gallery());
  }

  function apply(type, data) {
    if (type === 'state') { state = data; drawHead(); drawCases(); drawDetail(false); return; }
    if (!state) return;
    if (type === 'head') { Object.keys(data).forEach(function (k) { state[k] = data[k]; }); if (!data.status) delete state.status; drawHead(); drawDetail(false); return; }
    var c = findCase(data.case);
    if (!c) return;
    if (type === 'case') {
      c.status = data.status;
      if (data.durationMs !== undefined) c.durationMs = data.durationMs;
      var block = doc.querySelector('#cases .case[data-case="' + c.key + '"]');
      if (block) block.replaceWith(caseBlock(c));
    } else if (type === 'step') {
      var at = c.steps.findIndex(function (s) { return s.index === data.step.index; });
      if (at < 0) return;
      c.steps[at] = data.step;
      var row = doc.querySelector('#cases .step[data-case="' + c.key + '"][data-index="' + data.step.index + '"]');
      if (row) row.replaceWith(stepRow(c, data.step));
    }
    drawDetail(false);
  }

  // The event stream: text/event-stream over fetch; on a break the page reconnects and the
  // server sends the whole state again.
  function connect() {
    fetch('/api/events', { headers: { 'x-wbplay-ui': token } }).then(function (res) {
      if (!res.ok || !res.body) throw new Error('no event stream');
      var reader = res.body.getReader();
      var decoder = new TextDecoder();
      var buffer = '';
      function pump() {
        return reader.read().then(function (r) {
          if (r.done) throw new Error('the stream ended');
          buffer += decoder.decode(r.value, { stream: true });
          var end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            var block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            var type = 'message';
            var data = '';
            block.split('\n').forEach(function (line) {
              if (line.indexOf('event: ') === 0) type = line.slice(7);
              else if (line.indexOf('data: ') === 0) data += line.slice(6);
            });
            if (data) apply(type, JSON.parse(data));
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      var verdict = doc.getElementById('verdict');
      verdict.className = 'verdict offline';
      verdict.textContent = 'OFFLINE';
      setTimeout(connect, 1000);
    });
  }

  doc.getElementById('rerun').addEventListener('click', function () { post('/api/run'); });
  doc.getElementById('snapshots').addEventListener('change', function (e) { post('/api/snapshots', { on: e.target.checked }); });
  connect();
})();
`;
