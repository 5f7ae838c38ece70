// Fake model endpoints for `npm run test:clients`, on 127.0.0.1: the Anthropic Messages API (SSE), the
// OpenAI Responses API (SSE) and the Gemini generateContent API (SSE). Each plays one script: given the
// tool results the client sent back so far, the next step is a tool call or the closing text. Requests
// that carry no tools (title, summary, quota probes) get a short text. Every request body is recorded.
import http from 'node:http';

/**
 * A script: `next(results)` with the tool-result texts so far (oldest first) returns
 * `{ tool: 'bash', input: {...} }` or `{ text: '...' }`; `tool` is the server's own tool name;
 * `script.tools` lists the tools it will call.
 */

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function listen(handler) {
  const server = http.createServer((req, res) => {
    void readBody(req).then((raw) => {
      let body;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      return handler(req, res, body);
    }).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function sse(res, events, named) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const e of events) {
    res.write(named ? `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n` : `data: ${JSON.stringify(e)}\n\n`);
  }
  res.end();
}

function toolResultText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === 'string' ? c : c.text ?? '')).join('\n');
  return '';
}

/** The Anthropic Messages API (`ANTHROPIC_BASE_URL`). `prefix` turns a tool name into the client's name. */
export async function fakeAnthropic(script, prefix) {
  const requests = [];
  const results = [];
  /** `is_error` of each tool_result in `results`. */
  const errors = [];
  let n = 0;
  const server = await listen((req, res, body) => {
    requests.push({ method: req.method, url: req.url, body });
    if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
      return;
    }
    if (req.url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
      return;
    }
    const tools = (body?.tools ?? []).map((t) => t.name);
    // Claude Code sends the first request while MCP servers still connect, telling the model to
    // load their tools with ToolSearch: the fake does what a model does then.
    const asks = JSON.stringify(body?.messages ?? []).includes(prefix.slice(0, -2)) || JSON.stringify(body?.system ?? '').includes(prefix.slice(0, -2));
    const mine = tools.some((t) => t.startsWith(prefix));
    const names = new Map();
    const seen = [];
    const flags = [];
    for (const m of body?.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const c of m.content) {
        if (c.type === 'tool_use') names.set(c.id, c.name);
        if (c.type === 'tool_result' && names.get(c.tool_use_id)?.startsWith(prefix)) {
          seen.push(toolResultText(c.content));
          flags.push(c.is_error === true);
        }
      }
    }
    const searched = [...names.values()].includes('ToolSearch');
    let step;
    if (mine) {
      step = script.next(seen);
      results.splice(0, results.length, ...seen);
      errors.splice(0, errors.length, ...flags);
    } else if (tools.includes('ToolSearch') && (asks || tools.length > 0) && !searched) {
      step = { raw: 'ToolSearch', input: { query: `select:${script.tools.map((t) => prefix + t).join(',')}`, max_results: 5 } };
    } else {
      step = { text: 'ok' };
    }
    const id = `msg_${++n}`;
    const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id, type: 'message', role: 'assistant', model: body?.model ?? 'fake', content: [], stop_reason: null, stop_sequence: null, usage };
    let block;
    let deltas;
    let stop;
    if (step.tool || step.raw) {
      block = { type: 'tool_use', id: `toolu_${n}`, name: step.raw ?? `${prefix}${step.tool}`, input: {} };
      deltas = [{ type: 'input_json_delta', partial_json: JSON.stringify(step.input) }];
      stop = 'tool_use';
    } else {
      block = { type: 'text', text: '' };
      deltas = [{ type: 'text_delta', text: step.text }];
      stop = 'end_turn';
    }
    if (!body?.stream) {
      const content = block.type === 'tool_use' ? [{ ...block, input: step.input }] : [{ type: 'text', text: step.text }];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, content, stop_reason: stop }));
      return;
    }
    sse(res, [
      { type: 'message_start', message },
      { type: 'content_block_start', index: 0, content_block: block },
      ...deltas.map((delta) => ({ type: 'content_block_delta', index: 0, delta })),
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ], true);
  });
  return { server, url: `http://127.0.0.1:${server.address().port}`, requests, results, errors };
}

/** The OpenAI Responses API (a Codex `model_providers` entry with `wire_api = "responses"`). */
/** `ours(namespace)` tells the MCP server's namespace from others. */
export async function fakeResponses(script, ours) {
  const requests = [];
  const results = [];
  let n = 0;
  const server = await listen((req, res, body) => {
    requests.push({ method: req.method, url: req.url, body });
    if (req.method !== 'POST' || !req.url.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}');
      return;
    }
    const tools = (body?.tools ?? []).map((t) => t.name ?? t.type);
    // Codex groups an MCP server's tools in a `namespace` tool (`mcp__<server>`); a call names both.
    const spaced = (body?.tools ?? []).flatMap((t) => (t.type === 'namespace' ? (t.tools ?? []).map((x) => ({ namespace: t.name, name: x.name })) : []));
    const calls = new Map();
    const seen = [];
    for (const item of body?.input ?? []) {
      if (item.type === 'function_call') calls.set(item.call_id, item.name);
      if (item.type === 'function_call_output') {
        const out = item.output;
        seen.push(typeof out === 'string' ? out : Array.isArray(out) ? out.map((o) => o.text ?? '').join('\n') : JSON.stringify(out));
      }
    }
    const target = (tool) => spaced.find((t) => t.name === tool && ours(t.namespace)) ?? (tools.some((t) => t === tool) ? { name: tool } : undefined);
    let step = script.next(seen);
    results.splice(0, results.length, ...seen);
    if (step.tool && !target(step.tool)) step = { text: `no tool ${step.tool} among: ${tools.join(' ')}` };
    const id = `resp_${++n}`;
    const item = step.tool
      ? { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, ...target(step.tool), arguments: JSON.stringify(step.input), status: 'completed' }
      : { type: 'message', id: `m_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text, annotations: [] }] };
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 };
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'in_progress', model: body?.model ?? 'fake', output: [] };
    sse(res, [
      { type: 'response.created', sequence_number: 0, response },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...item, status: 'in_progress' } },
      { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item },
      { type: 'response.completed', sequence_number: 3, response: { ...response, status: 'completed', output: [item], usage } },
    ], true);
  });
  return { server, url: `http://127.0.0.1:${server.address().port}`, requests, results };
}

/**
 * Texts in a Gemini `functionResponse.response`: every `text`/`output` string. A result with
 * `isError` arrives as `{error: "MCP tool 'x' reported tool error for function call: … with response: [JSON]"}`;
 * the texts inside that JSON are taken.
 */
function responseTexts(value) {
  if (Array.isArray(value)) return value.flatMap(responseTexts);
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    if (typeof v !== 'string') return responseTexts(v);
    if (k === 'text' || k === 'output') return [v];
    const at = k === 'error' ? v.indexOf(' with response: ') : -1;
    if (at < 0) return [];
    try {
      return responseTexts(JSON.parse(v.slice(at + ' with response: '.length)));
    } catch {
      return [];
    }
  });
}

/** A value of a Gemini JSON schema's shape (the CLI's router asks for JSON before each turn). */
function jsonOf(schema) {
  const type = String(schema?.type ?? '').toUpperCase();
  if (type === 'OBJECT') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, jsonOf(v)]));
  if (type === 'ARRAY') return [];
  if (type === 'INTEGER' || type === 'NUMBER') return 1;
  if (type === 'BOOLEAN') return false;
  return schema?.enum?.[0] ?? 'simple';
}

/** The Gemini API (`GOOGLE_GEMINI_BASE_URL`). `ours(declaredName)` gives our tool's name for a declared function, or undefined. */
export async function fakeGemini(script, ours) {
  const requests = [];
  const results = [];
  const server = await listen((req, res, body) => {
    requests.push({ method: req.method, url: req.url, body });
    const m = /:(streamGenerateContent|generateContent|countTokens)/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"not here","status":"NOT_FOUND"}}');
      return;
    }
    if (m[1] === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens":10}');
      return;
    }
    const declared = (body?.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
    const mine = new Map(declared.filter((d) => ours(d)).map((d) => [ours(d), d]));
    const seen = [];
    for (const c of body?.contents ?? []) {
      for (const p of c.parts ?? []) if (p.functionResponse && ours(p.functionResponse.name)) seen.push(responseTexts(p.functionResponse.response).join('\n'));
    }
    const schema = body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
    let step = mine.size > 0 ? script.next(seen) : { text: schema ? JSON.stringify(jsonOf(schema)) : 'ok' };
    if (mine.size > 0) results.splice(0, results.length, ...seen);
    if (step.tool && !mine.has(step.tool)) step = { text: `no tool ${step.tool} among: ${declared.join(' ')}` };
    const part = step.tool ? { functionCall: { name: mine.get(step.tool), args: step.input } } : { text: step.text };
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
      modelVersion: body?.model ?? 'fake',
    };
    if (m[1] === 'generateContent') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
      return;
    }
    sse(res, [chunk], false);
  });
  return { server, url: `http://127.0.0.1:${server.address().port}`, requests, results };
}
