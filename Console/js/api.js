// The control API from the browser: same origin, the session cookie (HttpOnly, never visible here) and the
// session's CSRF token on every request that changes something.

let csrfToken = null;

/** Remembers the CSRF token of the signed-in session (null when signed out). */
export function setCsrfToken(token) {
  csrfToken = token;
}

/** An API error: HTTP status, the stable code (docs/API.md) and the human message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls `method path` with an optional JSON body; resolves to the decoded JSON, rejects with ApiError. */
export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (error) {
    throw new ApiError(0, 'network', `lastsetd did not answer (${error.message})`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data && data.error;
    throw new ApiError(response.status, detail ? detail.code : `http_${response.status}`, detail ? detail.message : text);
  }
  return data;
}

/** Encodes a path segment (page ids are safe names, but never trust that here). */
export function seg(text) {
  return encodeURIComponent(String(text));
}

/** Polls a job until it finishes; `onProgress(job)` sees every state. */
export async function waitForJob(id, onProgress) {
  for (;;) {
    const job = await api('GET', `/v1/jobs/${seg(id)}`);
    onProgress(job);
    if (job.state !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
