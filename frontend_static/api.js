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
export async function getJSON(path, params, { signal } = {}) {
  let response;
  try {
    response = await fetch(apiUrl(path, params), { signal, cache: 'no-store' });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError(`cannot reach the VisualDL server (${error.message})`, 0);
  }
  let body = null;
  try {
    body = await response.json();
  } catch (error) {
    if (isAbort(error)) throw error;
  }
  if (!response.ok) throw new ApiError(body?.error || `HTTP ${response.status}`, response.status);
  if (body === null) throw new ApiError(`the server sent no JSON for ${path}`, response.status);
  return body;
}

export function isAbort(error) {
  return error?.name === 'AbortError';
}
