// Devices: health (reachable, last error with its time), identity as last seen, busy with what, per page the
// version applied and whether the device still holds it (conformance), live values.
import { api, seg } from './api.js';
import { h, table, replace } from './dom.js';
import { badge, timeNode, valueNode } from './format.js';
import { conformanceNode } from './conformance.js';
import { preselectDevice } from './selection.js';

/** What a finding says, in words. */
function findingText(m) {
  const detail = m.detail.join(', ');
  switch (m.kind) {
    case 'replaced': return `replaced by another machine of the same model (${detail})`;
    case 'factoryReset': return `back at factory values (${detail})`;
    case 'anotherModel': return `another model answers (${detail}): nothing is written to it`;
    default: return `changed by someone Lastset does not know (${detail})`;
  }
}

/** A banner per device whose machine was found replaced, reset or of another model (docs/REPLACEMENT.md); an
 * operator's Restore opens the whole-machine apply with its dry run shown first. */
function machineBanner(list, ctx) {
  const found = list.filter((d) => d.machine && ['replaced', 'factoryReset', 'anotherModel'].includes(d.machine.kind));
  if (!found.length) return null;
  return h(
    'div',
    { id: 'machine-banner' },
    found.map((d) => {
      const m = d.machine;
      const restorable = m.kind !== 'anotherModel' && ctx.canOperate();
      const state =
        m.restore === 'started' ? `restore job ${m.restoreJob || ''} started by the replacement policy` : m.restore === 'withheld' ? `not restored automatically: ${m.note}` : m.restore === 'pending' ? 'restore due' : m.note || '';
      return h(
        'div.card.warn.banner',
        { role: 'alert', dataset: { device: d.id, kind: m.kind } },
        h('strong', {}, `${d.id}: ${findingText(m)}`),
        ' ',
        h('span.muted', {}, 'since ', timeNode(m.noticedAt), state ? `; ${state}` : ''),
        restorable
          ? h('button', { type: 'button', class: 'restore', onclick: () => { preselectDevice(d.id, true); location.hash = 'applyall'; } }, 'Restore… (dry run first)')
          : null,
      );
    }),
  );
}

async function pagesTable(device, conformance, ctx) {
  const rows = [];
  for (const pageId of device.pages) {
    const c = conformance.find((x) => x.device === device.id && x.pageId === pageId);
    const applied = (c && c.applied) || (device.applied && device.applied[pageId]);
    const unverified = (device.unverified || []).find((u) => u.pageId === pageId);
    // A failed replay that changed registers left the page holding no version (reason "failed").
    const partial = unverified && unverified.reason === 'failed';
    rows.push(
      h(
        'tr',
        { dataset: { page: pageId, state: c ? c.state : 'unknown' } },
        h('td', {}, pageId),
        h('td', {}, applied ? [`v${applied.versionId}`, h('div.muted', {}, timeNode(applied.appliedAt), ` by ${applied.appliedBy}`)] : h('span.muted', {}, partial ? 'no version' : 'never applied')),
        h('td', {}, unverified ? [badge(partial ? 'partiallyWritten' : 'unverified'), h('div.muted', {}, unverified.message)] : conformanceNode(c, c && c.state === 'drifted' ? await ctx.registers(pageId) : null)),
      ),
    );
  }
  return table(['Page', 'Applied', 'Conformance'], rows, { class: 'pages' });
}

async function identityOf(device) {
  // The audit log carries each device's identity values as read by its last capture or replay.
  try {
    const page = await api('GET', `/v1/audit?limit=1&device=${seg(device.id)}`);
    const record = page.records[page.records.length - 1];
    return record ? { values: record.identity, time: record.time } : null;
  } catch {
    return null;
  }
}

/** The poll's verdict on a device's health. */
function healthBadge(device) {
  return badge(device.reachable === undefined ? 'not polled yet' : device.reachable ? 'reachable' : 'unreachable');
}

/** What each poll changes on a card (no event carries it): health, last success and error, live values. */
async function pollParts(device, ctx) {
  const live = [];
  for (const [pageId, values] of Object.entries(device.live || {})) {
    const regs = await ctx.registers(pageId);
    const page = await ctx.page(pageId);
    live.push(
      h('h4', {}, `Live: ${page.title || pageId}`),
      table(
        ['Register', 'Value', 'Read at'],
        values.map((v) => {
          const reg = regs.get(v.registerId);
          return h(
            'tr',
            { dataset: { register: v.registerId } },
            h('td', {}, reg && reg.name ? `${reg.name} ` : '', h('span.muted', {}, v.registerId)),
            h('td.value', {}, v.error ? h('span.error', {}, v.error) : valueNode(v.value, reg, v.valueData)),
            h('td', {}, timeNode(v.lastDate)),
          );
        }),
      ),
    );
  }
  return {
    health: healthBadge(device),
    lastSuccess: timeNode(device.lastSuccessAt),
    lastError: device.lastError ? [h('span.error', {}, device.lastError), ' at ', timeNode(device.lastErrorAt)] : 'none',
    live,
  };
}

async function card(device, conformance, ctx) {
  const identity = await identityOf(device);
  const polled = await pollParts(device, ctx);
  const applyAll =
    ctx.canOperate() && device.pages.length
      ? h('button', { type: 'button', class: 'apply-all', onclick: () => { preselectDevice(device.id); location.hash = 'applyall'; } }, 'Apply all pages…')
      : null;
  return h(
    'article.card.device',
    { dataset: { device: device.id }, 'aria-labelledby': `dev-${device.id}` },
    h('h3', { id: `dev-${device.id}` }, device.id, ' ', h('span.health', {}, polled.health), device.busy ? h('span.badge.warn', {}, `busy: ${device.busy}`) : null),
    h(
      'dl.facts',
      {},
      h('dt', {}, 'Endpoint'),
      h('dd', {}, `${device.endpoint} unit ${device.unit}`),
      h('dt', {}, 'Polled'),
      h('dd', {}, device.poll === '0s' ? 'no' : `every ${device.poll}`),
      h('dt', {}, 'Last success'),
      h('dd.last-success', {}, polled.lastSuccess),
      h('dt', {}, 'Last error'),
      h('dd.last-error', {}, polled.lastError),
      h('dt', {}, 'Identity'),
      h(
        'dd',
        {},
        identity && identity.values.length
          ? [identity.values.map((v) => h('span.ident', {}, `${v.registerId} = `, valueNode(v.value, null, v.valueData), ' ')), h('span.muted', {}, '(seen ', timeNode(identity.time), ')')]
          : h('span.muted', {}, 'not read yet'),
      ),
    ),
    h('h4', {}, 'Pages: applied version and conformance'),
    device.pages.length ? await pagesTable(device, conformance, ctx) : h('p.muted', {}, 'No pages.'),
    applyAll,
    h('div.live', {}, polled.live),
  );
}

/** Renders the device list. Everything an event can change — the banner (findings), each page's conformance (drift),
 * busy (jobs) — is fetched again on the daemon's events (GET /v1/events) and on `gap`, never on a timer. What each
 * poll changes and no event carries — health, last success and error, live values — is fetched every 5 s
 * (`GET /v1/devices` alone) and put into the cards in place. */
export async function render(root, ctx) {
  let shown = '';
  async function refresh() {
    const list = await api('GET', '/v1/devices');
    const conformance = await api('GET', '/v1/conformance');
    const cards = [];
    for (const device of list) cards.push(await card(device, conformance, ctx));
    shown = list.map((d) => d.id).join(',');
    replace(root, h('h2', {}, 'Devices'), machineBanner(list, ctx), h('div.cards', {}, cards.length ? cards : h('p.muted', {}, 'No devices are configured.')));
  }
  async function refreshPolled() {
    const list = await api('GET', '/v1/devices');
    // Another set of devices (a reload): the whole view.
    if (list.map((d) => d.id).join(',') !== shown) return refresh();
    for (const device of list) {
      const article = [...root.querySelectorAll('article.device')].find((a) => a.dataset.device === device.id);
      if (!article) return refresh();
      const polled = await pollParts(device, ctx);
      replace(article.querySelector('.health'), polled.health);
      replace(article.querySelector('.last-success'), polled.lastSuccess);
      replace(article.querySelector('.last-error'), polled.lastError);
      replace(article.querySelector('.live'), polled.live);
    }
  }
  await refresh();
  let pending = null;
  const soon = () => {
    if (!pending) pending = setTimeout(() => { pending = null; refresh().catch((error) => ctx.error(root, error)); }, 200);
  };
  // A job's progress changes nothing shown here (its start and end do).
  const stop = ctx.onEvent((event) => { if (event.event !== 'jobProgress') soon(); });
  const timer = setInterval(() => { if (!pending) refreshPolled().catch((error) => ctx.error(root, error)); }, 5000);
  return () => { clearInterval(timer); clearTimeout(pending); stop(); };
}
