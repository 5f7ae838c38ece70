// Manage Rules webview: draws the layers the extension posts and sends edits (add, remove, move) and
// commands to try back. Text only ever goes in through textContent, never as HTML.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const layersEl = document.getElementById('layers');
  const notice = document.getElementById('notice');
  const tryForm = document.getElementById('try-form');
  const tryInput = document.getElementById('try-input');
  const tryResult = document.getElementById('try-result');
  const VERDICT_WORDS = { allow: 'allow', prompt: 'ask', deny: 'deny' };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function badge(approval) {
    const known = Object.prototype.hasOwnProperty.call(VERDICT_WORDS, approval);
    const b = el('span', `badge ${known ? approval : 'unknown'}`, known ? VERDICT_WORDS[approval] : String(approval));
    return b;
  }

  function button(label, title, onClick, disabled) {
    const b = el('button', 'icon', label);
    b.type = 'button';
    b.title = title;
    b.setAttribute('aria-label', title);
    b.disabled = Boolean(disabled);
    b.addEventListener('click', onClick);
    return b;
  }

  function edit(layer, editMsg) {
    vscode.postMessage({ type: 'edit', layer, edit: editMsg });
  }

  function ruleRow(view, row, count) {
    const li = el('li', `rule${row.problem ? ' invalid' : ''}`);
    li.dataset.index = String(row.index);
    li.append(el('span', 'position', String(row.index + 1)), badge(row.approval), el('code', 'match', row.match));
    if (row.exact) li.append(el('span', 'flag', 'exact command'));
    if (row.allowRedirects) li.append(el('span', 'flag', 'redirects allowed'));
    if (row.problem) li.append(el('span', 'problem', row.problem));
    for (const c of row.conflicts || []) li.append(el('span', 'problem conflict', c));
    if (view.editable) {
      const actions = el('span', 'actions');
      const at = row.index;
      actions.append(
        button('↑', `Move \`${row.match}\` up`, () => edit(view.layer, { op: 'move', index: at, match: row.match, to: at - 1 }), at === 0),
        button('↓', `Move \`${row.match}\` down`, () => edit(view.layer, { op: 'move', index: at, match: row.match, to: at + 1 }), at === count - 1),
        button('✕', `Remove \`${row.match}\``, () => edit(view.layer, { op: 'remove', index: at, match: row.match })),
      );
      li.append(actions);
    }
    return li;
  }

  function addForm(view) {
    const form = el('form', 'add');
    const match = el('input', 'add-match');
    match.type = 'text';
    match.spellcheck = false;
    match.autocomplete = 'off';
    match.placeholder = 'glob, e.g. npm test *';
    match.setAttribute('aria-label', `New rule for ${view.title}`);
    const approval = el('select', 'add-approval');
    approval.setAttribute('aria-label', 'What the rule does');
    for (const v of ['allow', 'prompt', 'deny']) {
      const o = el('option', '', v === 'prompt' ? 'ask (prompt)' : v);
      o.value = v;
      approval.append(o);
    }
    const exactLabel = el('label', 'add-exact');
    const exact = el('input');
    exact.type = 'checkbox';
    exactLabel.append(exact, document.createTextNode(' exact command'));
    exactLabel.title = 'The rule matches this one command only: its words, no wildcards';
    const submit = el('button', 'primary', 'Add');
    submit.type = 'submit';
    form.append(match, approval, exactLabel, submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (!match.value.trim()) {
        match.focus();
        return;
      }
      edit(view.layer, { op: 'add', match: match.value, approval: approval.value, ...(exact.checked ? { exact: true } : {}) });
      match.value = '';
    });
    return form;
  }

  function renderLayers(layers) {
    // Keep a half-typed new rule across redraws (a settings change redraws everything).
    const typed = new Map();
    for (const input of layersEl.querySelectorAll('.layer .add-match')) {
      typed.set(input.closest('.layer').dataset.layer, input.value);
    }
    const focusedLayer = document.activeElement && document.activeElement.classList.contains('add-match')
      ? document.activeElement.closest('.layer').dataset.layer
      : undefined;
    layersEl.replaceChildren();
    for (const view of layers) {
      const section = el('section', `layer${view.editable ? ' editable' : ''}`);
      section.dataset.layer = view.layer;
      const head = el('div', 'layer-head');
      const title = el('h2', '', view.title);
      const count = el('span', 'count', `${view.rules.length} rule${view.rules.length === 1 ? '' : 's'}`);
      head.append(title, count);
      if (view.editable) {
        const open = el('button', 'link', 'Open settings file');
        open.type = 'button';
        open.addEventListener('click', () => vscode.postMessage({ type: 'open', layer: view.layer }));
        head.append(open);
      }
      section.append(head, el('div', 'source', view.source));
      if (view.note) section.append(el('div', 'note', view.note));
      if (view.rules.length) {
        const list = el('ol', 'rules');
        for (const row of view.rules) list.append(ruleRow(view, row, view.rules.length));
        section.append(list);
      } else if (!view.note) {
        section.append(el('div', 'empty', 'No rules.'));
      }
      if (view.editable) {
        const form = addForm(view);
        const input = form.querySelector('.add-match');
        input.value = typed.get(view.layer) || '';
        section.append(form);
        if (focusedLayer === view.layer) input.focus();
      }
      layersEl.append(section);
    }
  }

  function renderTried(result) {
    tryResult.replaceChildren();
    if (result.error) {
      tryResult.className = 'error';
      tryResult.append(el('div', '', result.error));
      return;
    }
    tryResult.className = `verdict-${result.verdict}`;
    const head = el('div', 'try-head');
    head.append(badge(result.verdict), el('strong', 'headline', result.headline));
    tryResult.append(head, el('div', 'because', result.because));
    if (result.matched && result.matched.length) {
      const list = el('ul', 'matched');
      for (const m of result.matched) list.append(el('li', '', m));
      tryResult.append(el('div', 'matched-head', 'Deny and ask rules that matched:'), list);
    }
    if (result.segments.length > 1) {
      const list = el('ol', 'segments');
      for (const s of result.segments) {
        const li = el('li');
        li.append(badge(s.verdict), el('code', '', s.text), el('span', 'seg-rule', s.rule ? `rule \`${s.rule}\`` : 'no rule'));
        list.append(li);
      }
      tryResult.append(list);
    }
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    switch (message.type) {
      case 'state':
        renderLayers(message.layers);
        break;
      case 'tried':
        renderTried(message.result);
        break;
      case 'notice':
        notice.textContent = message.text;
        notice.className = message.error ? 'error' : 'ok';
        if (message.undo) {
          const undo = el('button', 'link', 'Undo');
          undo.type = 'button';
          undo.addEventListener('click', () => vscode.postMessage({ type: 'undo' }));
          notice.append(' ', undo);
        }
        break;
    }
  });

  tryForm.addEventListener('submit', (event) => {
    event.preventDefault();
    vscode.postMessage({ type: 'try', command: tryInput.value });
  });

  vscode.postMessage({ type: 'ready' });
})();
