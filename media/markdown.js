// A small, safe Markdown reader for agent messages in the panel: fenced code, headings, lists, quotes,
// paragraphs, and inline code, bold, italics and http(s) links. It returns plain data that the panel
// turns into DOM nodes with textContent only, so no HTML an agent sends is ever interpreted. Written by
// hand (about 100 lines) instead of pulling a Markdown library plus a sanitiser into the webview.
/* global module -- also loaded by the Node unit tests, which read module.exports */
(function (root) {
  'use strict';

  /** Inline nodes: {type:'text'|'code', text} | {type:'strong'|'em', children} | {type:'link', href, children}. */
  function inline(text) {
    const out = [];
    const pattern = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|\b_([^_\s][^_]*?)_\b|\[([^\]]+)\]\(([^)\s]+)\)/g;
    let last = 0;
    let m;
    while ((m = pattern.exec(text)) !== null) {
      if (m.index > last) out.push({ type: 'text', text: text.slice(last, m.index) });
      if (m[2] !== undefined) out.push({ type: 'code', text: m[2].trim() === '' ? m[2] : m[2].replace(/^ (.*) $/, '$1') });
      else if (m[3] !== undefined || m[4] !== undefined) out.push({ type: 'strong', children: inline(m[3] ?? m[4]) });
      else if (m[5] !== undefined || m[6] !== undefined) out.push({ type: 'em', children: inline(m[5] ?? m[6]) });
      else if (/^https?:\/\//i.test(m[8])) out.push({ type: 'link', href: m[8], children: inline(m[7]) });
      else out.push({ type: 'text', text: m[0] });
      last = pattern.lastIndex;
    }
    if (last < text.length) out.push({ type: 'text', text: text.slice(last) });
    return out;
  }

  /** Blocks: code {lang, text}, heading {level, children}, list {ordered, items}, quote/para {children}. */
  function parse(source) {
    const lines = String(source).replace(/\r\n?/g, '\n').split('\n');
    const blocks = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      const fence = /^\s*(```+|~~~+)\s*([\w+-]*)\s*$/.exec(line);
      if (fence) {
        const body = [];
        i++;
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
        i++; // the closing fence (or the end of an unfinished message)
        blocks.push({ type: 'code', lang: fence[2], text: body.join('\n') });
        continue;
      }
      if (!line.trim()) {
        i++;
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) {
        blocks.push({ type: 'heading', level: heading[1].length, children: inline(heading[2]) });
        i++;
        continue;
      }
      const item = /^\s*([-*+]|\d+[.)])\s+/;
      if (item.test(line)) {
        const ordered = /\d/.test(item.exec(line)[1]);
        const items = [];
        const sameKind = (l) => item.test(l) && /\d/.test(item.exec(l)[1]) === ordered;
        while (i < lines.length && sameKind(lines[i])) items.push(inline(lines[i++].replace(item, '')));
        blocks.push({ type: 'list', ordered, items });
        continue;
      }
      if (/^>\s?/.test(line)) {
        const body = [];
        while (i < lines.length && /^>\s?/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ''));
        blocks.push({ type: 'quote', children: inline(body.join('\n')) });
        continue;
      }
      const body = [];
      while (i < lines.length && lines[i].trim() && !/^\s*(```|~~~)/.test(lines[i]) && !/^#{1,6}\s/.test(lines[i]) && !item.test(lines[i])) {
        body.push(lines[i++]);
      }
      blocks.push({ type: 'para', children: inline(body.join('\n')) });
    }
    return blocks;
  }

  /** DOM nodes for the blocks, built with createElement and textContent only. */
  function render(doc, blocks) {
    const frag = doc.createDocumentFragment();
    const inlines = (parent, nodes) => {
      for (const n of nodes) {
        if (n.type === 'text') parent.append(doc.createTextNode(n.text));
        else if (n.type === 'code') parent.append(Object.assign(doc.createElement('code'), { textContent: n.text }));
        else {
          const el = doc.createElement(n.type === 'link' ? 'a' : n.type);
          if (n.type === 'link') {
            el.href = n.href;
            el.title = n.href;
          }
          inlines(el, n.children);
          parent.append(el);
        }
      }
    };
    for (const b of blocks) {
      let el;
      if (b.type === 'code') {
        el = doc.createElement('pre');
        el.append(Object.assign(doc.createElement('code'), { textContent: b.text }));
      } else if (b.type === 'list') {
        el = doc.createElement(b.ordered ? 'ol' : 'ul');
        for (const it of b.items) {
          const li = doc.createElement('li');
          inlines(li, it);
          el.append(li);
        }
      } else {
        el = doc.createElement(b.type === 'heading' ? `h${Math.min(6, b.level + 2)}` : b.type === 'quote' ? 'blockquote' : 'p');
        inlines(el, b.children);
      }
      frag.append(el);
    }
    return frag;
  }

  const api = { parse, inline, render };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.agentBashMarkdown = api;
})(this);
