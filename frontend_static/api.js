// The JSON API client. Every URL is relative ("api/..."), so the UI works under a
// path prefix (/visualdl/) and behind jupyter-server-proxy.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** "api/<path>?..." with array values repeated (run=a&run=b); undefined/null dropped. */
export function apiUrl(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  }
  const text = query.toString();
  return `api/${path}${text ? `?${text}` : ''}`;
}

/** GET api/<path> as JSON; a 4xx/5xx becomes an ApiError carrying the server's {error}. */
export async function getJSON(path, params, options) {
  return (await fetchJSON(path, params, options)).body;
}

// The routes and their query parameters as the server declares them (api/openapi.json,
// generated from the same declarations that parse each query): every call this page makes
// is checked against them, and a call the server does not declare is a console error, which
// the browser tests fail on. Calls made before the document arrives are checked when it does.
let declared = null;
const asked = new Map();

function checkCall(path, params) {
  const keys = Object.keys(params || {}).filter((key) => params[key] !== undefined && params[key] !== null);
  if (!declared) {
    if (asked.size < 200) asked.set(`${path}?${keys.join('&')}`, [path, keys]);
    return;
  }
  const names = declared.get(path);
  if (!names) console.error(`the web UI asked for api/${path}, which the server does not declare`);
  else for (const key of keys) if (!names.has(key)) console.error(`the web UI gave api/${path} a parameter ${key} it does not declare`);
}

/** Load the server's route declarations (after the first data: it is not needed to draw). */
export async function loadDeclarations() {
  try {
    const doc = await (await fetch('api/openapi.json', { cache: 'no-store' })).json();
    declared = new Map(Object.entries(doc.paths).map(([route, item]) =>
      [route.replace(/^.*?\/api\//, ''), new Set((item.get?.parameters || []).map((p) => p.name))]));
  } catch {
    return; // no document, no checks: the calls themselves still work
  }
  for (const [path, keys] of asked.values()) checkCall(path, Object.fromEntries(keys.map((key) => [key, 1])));
  asked.clear();
}

/** Like getJSON, also giving the response's text: {body, text} (to tell unchanged data). */
/**
 * Answers kept by URL with their ETag (the latest first out past REMEMBER_CHARS of JSON): asked
 * again, the server says 304 while nothing changed, and the same body object comes back (a
 * caller may skip its work when it gets the object it had).
 */
const remembered = new Map();
let rememberedChars = 0;
export const REMEMBER_CHARS = 32e6;

function remember(url, entry) {
  forget(url);
  remembered.set(url, entry);
  rememberedChars += entry.text.length;
  for (const [old, kept] of remembered) {
    if (rememberedChars <= REMEMBER_CHARS || old === url) break;
    remembered.delete(old);
    rememberedChars -= kept.text.length;
  }
}

function forget(url) {
  const kept = remembered.get(url);
  if (!kept) return;
  remembered.delete(url);
  rememberedChars -= kept.text.length;
}

export async function fetchJSON(path, params, { signal } = {}) {
  checkCall(path, params);
  const url = apiUrl(path, params);
  const known = remembered.get(url);
  let response;
  let text;
  try {
    response = await fetch(url, { signal, cache: 'no-store', headers: known ? { 'If-None-Match': known.etag } : {} });
    if (response.status === 304 && known) {
      remember(url, known); // the latest used: kept longest
      return { body: known.body, text: known.text };
    }
    text = await response.text();
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError(`cannot reach the VisualDL server (${error.message})`, 0);
  }
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    forget(url);
    throw new ApiError(body?.error || `HTTP ${response.status}`, response.status);
  }
  if (body === null) throw new ApiError(`the server sent no JSON for ${path}`, response.status);
  const etag = response.headers.get('ETag');
  if (etag) remember(url, { etag, body, text });
  else forget(url);
  return { body, text };
}

export function isAbort(error) {
  return error?.name === 'AbortError';
}
