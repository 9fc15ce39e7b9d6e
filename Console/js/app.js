// The technicians' console: sign-in, navigation, and the views (devices, templates, capture, apply, apply all,
// rollout, changes, as found, audit).
import { api, ApiError, setCsrfToken, seg } from './api.js';
import { h, replace } from './dom.js';
import { setRaw } from './format.js';
import { openEvents, closeEvents, onEvent } from './events.js';
import * as devices from './devices.js';
import * as templates from './templates.js';
import * as capture from './capture.js';
import * as apply from './apply.js';
import * as applyall from './applyall.js';
import * as rollout from './rollout.js';
import * as audit from './audit.js';
import * as changes from './changes.js';
import * as asfound from './asfound.js';

const views = { devices, templates, capture, apply, applyall, rollout, changes, asfound, audit };
const $ = (id) => document.getElementById(id);
let session = null;
let cleanup = null;
const pageDefinitions = new Map();

/** What every view gets: who is signed in, cached page definitions, a confirmation dialog, a status line. */
const ctx = {
  get role() {
    return session ? session.role : null;
  },
  get principal() {
    return session ? session.principal : null;
  },
  canOperate() {
    // Every role from operator up writes (approver and administrator include it).
    return session && ['operator', 'approver', 'administrator'].includes(session.role);
  },
  async page(id) {
    if (!pageDefinitions.has(id)) pageDefinitions.set(id, await api('GET', `/v1/pages/${seg(id)}`));
    return pageDefinitions.get(id);
  },
  async registers(id) {
    const page = await ctx.page(id);
    return new Map([...(page.identity || []), ...page.registers].map((r) => [r.registerId, r]));
  },
  confirm(title, body, okLabel) {
    const dialog = $('confirm');
    replace($('confirm-title'), title);
    replace($('confirm-body'), body);
    replace($('confirm-ok'), okLabel);
    dialog.returnValue = 'cancel';
    dialog.showModal();
    $('confirm-cancel').focus();
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    });
  },
  /** Calls `listener(event)` for each of the daemon's events (events.js) until the returned function is called. */
  onEvent,
  status(text) {
    replace($('status'), text || '');
  },
  /** Shows an API error where the view wants it; a 401 means the session is gone: back to sign-in. */
  error(where, error) {
    if (error instanceof ApiError && error.status === 401) {
      signedOut('Your session has ended; sign in again.');
      return;
    }
    replace(where, h('p.error', { role: 'alert' }, error instanceof ApiError ? `${error.message} (${error.code})` : String(error)));
  },
};

function currentView() {
  const name = location.hash.replace(/^#/, '');
  return views[name] ? name : 'devices';
}

async function show(name) {
  if (cleanup) cleanup();
  cleanup = null;
  for (const button of document.querySelectorAll('#nav button')) {
    if (button.dataset.view === name) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  const root = $('view');
  replace(root, h('p.muted', {}, 'Loading…'));
  try {
    cleanup = (await views[name].render(root, ctx)) || null;
  } catch (error) {
    ctx.error(root, error);
  }
}

async function signedIn(info) {
  session = info;
  setCsrfToken(info.csrfToken || null);
  $('signin').hidden = true;
  $('nav').hidden = false;
  $('who').hidden = false;
  $('view').hidden = false;
  replace($('principal'), info.principal);
  replace($('role'), info.role);
  $('role').className = `badge role-${info.role}`;
  document.body.dataset.role = info.role;
  // The events stream first, then the view's state: nothing that happens in between is missed.
  await openEvents();
  show(currentView());
}

function signedOut(message) {
  if (cleanup) cleanup();
  cleanup = null;
  closeEvents();
  session = null;
  setCsrfToken(null);
  pageDefinitions.clear();
  delete document.body.dataset.role;
  $('nav').hidden = true;
  $('who').hidden = true;
  $('view').hidden = true;
  replace($('view'));
  $('signin').hidden = false;
  replace($('signin-error'), message || '');
  $('token').value = '';
  $('token').focus();
}

async function start() {
  $('raw').addEventListener('change', (event) => {
    setRaw(event.target.checked);
    show(currentView());
  });
  for (const button of document.querySelectorAll('#nav button')) {
    button.addEventListener('click', () => {
      if (location.hash === `#${button.dataset.view}`) show(button.dataset.view);
      else location.hash = button.dataset.view;
    });
  }
  window.addEventListener('hashchange', () => session && show(currentView()));
  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = $('token').value;
    $('token').value = '';
    replace($('signin-error'));
    try {
      await signedIn(await api('POST', '/v1/session', { token }));
    } catch (error) {
      replace($('signin-error'), error.status === 401 ? 'That token is not valid.' : `${error.message} (${error.code})`);
      $('token').focus();
    }
  });
  $('signout').addEventListener('click', async () => {
    try {
      await api('DELETE', '/v1/session');
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) {
        ctx.status(`Sign-out failed: ${error.message}`);
        return;
      }
    }
    signedOut('Signed out.');
  });
  const info = await api('GET', '/v1/session');
  if (info.signedIn && info.csrfToken) await signedIn(info);
  else signedOut('');
  document.body.dataset.ready = 'true';
}

start().catch((error) => {
  replace($('signin-error'), `The console could not start: ${error.message}`);
  $('signin').hidden = false;
});
