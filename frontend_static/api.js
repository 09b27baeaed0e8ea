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

/** Like getJSON, also giving the response's text: {body, text} (to tell unchanged data). */
export async function fetchJSON(path, params, { signal } = {}) {
  let response;
  let text;
  try {
    response = await fetch(apiUrl(path, params), { signal, cache: 'no-store' });
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
  if (!response.ok) throw new ApiError(body?.error || `HTTP ${response.status}`, response.status);
  if (body === null) throw new ApiError(`the server sent no JSON for ${path}`, response.status);
  return { body, text };
}

export function isAbort(error) {
  return error?.name === 'AbortError';
}
