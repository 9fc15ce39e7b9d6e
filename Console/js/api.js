// The control API from the browser: same origin, the session cookie (HttpOnly, never visible here) and the
// session's CSRF token on every request that changes something.

import { onEvent, eventsOpen } from './events.js';

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

/**
 * Follows a job until it finishes; `onProgress(job)` sees every state. The job's own events carry it (`jobProgress`,
 * `jobFinished`: then its report is fetched once); only while the events stream is not open (the browser reopening it,
 * or the daemon refusing it) is the job asked for once a second. A `gap` (events were missed) asks for it at once.
 */
export function waitForJob(id, onProgress) {
  return new Promise((resolve, reject) => {
    let done = false;
    let last = null;
    const finish = (job, error) => {
      if (done) return;
      done = true;
      stopEvents();
      clearInterval(fallback);
      if (error) reject(error);
      else resolve(job);
    };
    const check = async () => {
      try {
        const job = await api('GET', `/v1/jobs/${seg(id)}`);
        if (done) return;
        last = job;
        onProgress(job);
        if (job.state !== 'running') finish(job);
      } catch (error) {
        finish(null, error);
      }
    };
    // Listening first, then the first look: a job that ends in between is never missed.
    const stopEvents = onEvent((event) => {
      if (event.event === 'gap') check();
      if (!event.job || event.job.id !== id) return;
      if (event.event === 'jobFinished') check();
      else if (event.event === 'jobProgress' && last && !done) onProgress({ ...last, progress: event.job.progress });
    });
    const fallback = setInterval(() => {
      if (!eventsOpen()) check();
    }, 1000);
    check();
  });
}
