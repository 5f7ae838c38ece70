// Agent panel webview: renders the transcript the extension posts and sends prompts, Stop, terminal
// reveals and answers to approval cards back. Text only ever goes in through textContent, never as
// HTML; agent messages are Markdown read by markdown.js into plain DOM nodes.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const transcript = document.getElementById('transcript');
  const statusLine = document.getElementById('status');
  const form = document.getElementById('composer');
  const prompt = document.getElementById('prompt');
  const send = document.getElementById('send');
  const stop = document.getElementById('stop');
  const questions = document.getElementById('questions');
  const markdown = window.agentBashMarkdown;
  /** id → card element of each open approval question. */
  const questionEls = new Map();

  /** An approval asked inside the panel: the same choices as the dialog; Escape picks the close button. */
  function showQuestion(q) {
    const card = el('section', 'question');
    card.setAttribute('role', 'alertdialog');
    card.setAttribute('aria-label', q.message);
    card.tabIndex = -1;
    card.append(el('div', 'question-title', q.message));
    if (q.detail) card.append(el('pre', 'question-detail', q.detail));
    const buttons = el('div', 'question-buttons');
    const answer = (button) => {
      vscode.postMessage({ type: 'answer', id: q.id, button });
      removeQuestion(q.id);
    };
    q.buttons.forEach((label, i) => {
      const b = el('button', i === 0 ? 'primary' : 'secondary', label);
      b.type = 'button';
      b.addEventListener('click', () => answer(label));
      buttons.append(b);
    });
    card.append(buttons);
    card.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && q.closeButton) answer(q.closeButton);
    });
    questionEls.set(q.id, card);
    questions.append(card);
    const first = buttons.querySelector('button');
    if (first) first.focus();
    card.scrollIntoView({ block: 'nearest' });
  }

  function removeQuestion(id) {
    const card = questionEls.get(id);
    if (card) card.remove();
    questionEls.delete(id);
    follow();
  }

  /** index → element of each transcript item; terminalId → card state and elements. */
  const itemEls = [];
  const cards = new Map();
  const cardEls = new Map();

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  }

  // The panel follows what is new (a reply, a card's output, its exit) while the person is at the
  // bottom; once they scroll up it stays where they are until they scroll back down.
  let following = true;
  window.addEventListener('scroll', () => {
    following = nearBottom();
  }, { passive: true });
  function follow() {
    if (following) window.scrollTo(0, document.body.scrollHeight);
  }

  function cardElement(terminalId) {
    let card = cardEls.get(terminalId);
    if (card) return card;
    const root = el('button', 'terminal-card');
    root.type = 'button';
    root.title = 'Show this terminal';
    const head = el('div', 'terminal-head');
    const command = el('span', 'terminal-command', terminalId);
    const exit = el('span', 'terminal-exit');
    head.append(command, exit);
    const cut = el('div', 'terminal-cut', '… earlier output is in the terminal (click to show it)');
    const output = el('pre', 'terminal-output');
    root.append(head, cut, output);
    root.addEventListener('click', () => vscode.postMessage({ type: 'reveal', terminalId }));
    card = { root, command, exit, cut, output };
    cardEls.set(terminalId, card);
    paintCard(terminalId);
    return card;
  }

  function paintCard(terminalId) {
    const state = cards.get(terminalId);
    const card = cardEls.get(terminalId);
    if (!state || !card) return;
    card.command.textContent = state.commandLine || state.terminalId;
    card.exit.textContent = state.exit || 'running…';
    card.root.classList.toggle('exited', Boolean(state.exit));
    card.cut.hidden = !state.cut;
    card.output.textContent = state.output;
    card.output.scrollTop = card.output.scrollHeight;
    follow();
  }

  function renderItem(index, item) {
    let node = itemEls[index];
    if (!node) {
      node = el('section', `item ${item.kind}`);
      itemEls[index] = node;
      transcript.append(node);
    }
    node.className = `item ${item.kind}`;
    node.replaceChildren();
    if (item.kind === 'tool') {
      const head = el('div', 'tool-head');
      head.append(el('span', `tool-status status-${item.status}`, item.statusText || item.status), el('span', 'tool-title', item.title));
      node.append(head);
      if (item.text && item.terminalIds.length > 0) {
        // The card shows the command's output; what the agent got back (the same output, mostly) stays folded.
        const folded = el('details', 'tool-result');
        folded.append(el('summary', '', 'What the agent got back'), el('pre', 'tool-text', item.text));
        node.append(folded);
      } else if (item.text) {
        node.append(el('pre', 'tool-text', item.text));
      }
      for (const id of item.terminalIds) {
        if (!cards.has(id)) cards.set(id, { terminalId: id, commandLine: '', output: '' });
        node.append(cardElement(id).root);
      }
    } else if (item.kind === 'agent') {
      const text = el('div', 'text markdown');
      text.append(markdown.render(document, markdown.parse(item.text)));
      node.append(text);
    } else {
      node.append(el('div', 'text', item.text));
    }
    follow();
  }

  function setBusy(busy) {
    send.disabled = busy;
    stop.disabled = !busy;
    prompt.disabled = busy;
    if (!busy) prompt.focus();
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    switch (message.type) {
      case 'reset':
        transcript.replaceChildren();
        itemEls.length = 0;
        cards.clear();
        cardEls.clear();
        for (const card of message.cards) cards.set(card.terminalId, card);
        message.items.forEach((item, index) => renderItem(index, item));
        setBusy(message.busy);
        statusLine.textContent = message.status;
        break;
      case 'item':
        renderItem(message.index, message.item);
        break;
      case 'card':
        cards.set(message.card.terminalId, message.card);
        paintCard(message.card.terminalId);
        break;
      case 'busy':
        setBusy(message.busy);
        break;
      case 'status':
        statusLine.textContent = message.text;
        break;
      case 'ask':
        showQuestion(message.question);
        break;
      case 'unask':
        removeQuestion(message.id);
        break;
    }
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = prompt.value.trim();
    if (!text) return;
    prompt.value = '';
    vscode.postMessage({ type: 'prompt', text });
  });
  prompt.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
  stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));

  vscode.postMessage({ type: 'ready' });
})();
