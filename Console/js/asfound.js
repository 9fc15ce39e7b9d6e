// As found: a device's as-found history (docs/AS-FOUND.md) — what its scheduled backups found on each page, kept
// only when something changed, each change credited to the Lastset job that made it or to nobody Lastset knows.
// An operator may read the device as found now. Refreshed on the daemon's `backup` events for the device shown (and
// on `gap`: events were missed).
import { api, seg } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { badge, timeNode, valueNode } from './format.js';

function byText(change) {
  return change.by ? `job ${change.by.job} (${change.by.who})` : 'nobody Lastset knows';
}

function changeTable(record, registers) {
  return table(
    ['Register', 'Change', 'Before', 'After', 'By'],
    record.changes.map((c) =>
      h(
        'tr',
        { dataset: { register: c.registerId, kind: c.kind, by: c.by ? 'lastset' : 'nobody' } },
        h('td', {}, c.registerId),
        h('td', {}, c.kind),
        h('td', {}, c.before ? valueNode(c.before.value, registers.get(c.registerId), c.before.valueData) : '—'),
        h('td', {}, c.after ? valueNode(c.after.value, registers.get(c.registerId), c.after.valueData) : '—'),
        h('td', {}, byText(c)),
      ),
    ),
    { class: 'changes' },
  );
}

/** The values of one record, loaded when its details are opened. */
function valuesOnOpen(details, deviceId, record, registers, ctx) {
  let loaded = false;
  details.addEventListener('toggle', async () => {
    if (!details.open || loaded) return;
    loaded = true;
    const slot = details.querySelector('.values');
    try {
      const full = await api('GET', `/v1/devices/${seg(deviceId)}/as-found/${seg(record.pageId)}/${record.number}`);
      replace(
        slot,
        table(
          ['Register', 'Address', 'Value'],
          full.values.map((v) =>
            h('tr', { dataset: { register: v.registerId } }, h('td', {}, v.registerId), h('td', {}, v.address), h('td', {}, valueNode(v.value, registers.get(v.registerId), v.valueData))),
          ),
        ),
      );
    } catch (error) {
      ctx.error(slot, error);
    }
  });
}

function recordCard(deviceId, record, registers, ctx) {
  const details = h('details', {}, h('summary', {}, 'Every value as found'), h('div.values', {}, h('p.muted', {}, 'Loading…')));
  valuesOnOpen(details, deviceId, record, registers, ctx);
  const first = record.number === 1 && !record.changes.length;
  return h(
    'article.card.record',
    { dataset: { page: record.pageId, number: record.number } },
    h('h3', {}, `${record.pageId} · record ${record.number}`),
    h('p', {}, timeNode(record.takenAt), ` by ${record.who}`),
    record.machineChanged ? h('p.warning', {}, 'Another machine answered: its identity differs from the record before.') : null,
    record.pageChanged ? h('p.muted', {}, 'The page definition changed since the record before.') : null,
    first ? h('p.muted', {}, 'First backup: every register as found.') : changeTable(record, registers),
    details,
  );
}

/** Renders the device and page choice, the schedule and the records, newest first. */
export async function render(root, ctx) {
  const devices = await api('GET', '/v1/devices');
  if (!devices.length) {
    replace(root, h('h2', {}, 'As found'), h('p.muted', {}, 'No device is configured.'));
    return null;
  }
  const fromHash = new URLSearchParams(location.hash.split('?')[1] || '').get('device');
  const scheduled = devices.find((d) => d.id === fromHash) || devices.find((d) => d.backup) || devices[0];
  const device = select('asfound-device', devices.map((d) => [d.id, d.backup ? `${d.id} (every ${d.backup})` : d.id]), scheduled.id);
  const page = h('select', { id: 'asfound-page' });
  const out = h('div', { id: 'asfound-out' });
  const now = ctx.canOperate() ? h('button', { id: 'asfound-now', type: 'button' }, 'Back up now') : null;
  const nowStatus = h('p', { id: 'asfound-now-status', role: 'status' });

  function pagesOf(id) {
    const d = devices.find((x) => x.id === id);
    replace(page, [['', 'every page'], ...d.pages.map((p) => [p, p])].map(([v, l]) => h('option', { value: v }, l)));
  }

  async function load() {
    const query = new URLSearchParams({ limit: '100' });
    if (page.value) query.set('page', page.value);
    try {
      const listing = await api('GET', `/v1/devices/${seg(device.value)}/as-found?${query}`);
      const registers = new Map();
      for (const id of new Set(listing.records.map((r) => r.pageId))) for (const [k, v] of await ctx.registers(id)) registers.set(k, v);
      replace(
        out,
        h(
          'p',
          { id: 'asfound-schedule' },
          listing.backup ? `Backed up every ${listing.backup}.` : 'No scheduled backup (set `backup` in the config).',
          listing.lastAttempt ? [' Last attempt ', timeNode(listing.lastAttempt), listing.failure ? [': ', badge('failed'), ` ${listing.failure}`] : ': every page read.'] : null,
        ),
        listing.records.length ? listing.records.map((r) => recordCard(device.value, r, registers, ctx)) : h('p.muted', {}, 'No as-found record yet.'),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  device.addEventListener('change', () => {
    pagesOf(device.value);
    load();
  });
  page.addEventListener('change', load);
  if (now) {
    now.addEventListener('click', async () => {
      now.disabled = true;
      replace(nowStatus, 'Reading every page as found…');
      try {
        const job = await api('POST', `/v1/devices/${seg(device.value)}/as-found?wait=1`);
        nowStatus.dataset.status = job.asFound && job.asFound.pages.every((p) => p.outcome !== 'failed') ? 'succeeded' : 'failed';
        replace(
          nowStatus,
          (job.asFound ? job.asFound.pages : []).map((p) =>
            h('span', { dataset: { page: p.pageId, outcome: p.outcome } }, `${p.pageId}: `, badge(p.outcome === 'failed' ? 'failed' : p.outcome), p.error ? ` ${p.error}` : '', ' '),
          ),
          job.error ? ` ${job.error}` : '',
        );
        await load();
      } catch (error) {
        ctx.error(nowStatus, error);
      } finally {
        now.disabled = false;
      }
    });
  }
  pagesOf(device.value);
  replace(
    root,
    h('h2', {}, 'As found'),
    h('div.card', {}, h('div.row', {}, field('Device', device), field('Page', page)), now, nowStatus),
    out,
  );
  await load();
  return ctx.onEvent((event) => {
    if (event.event === 'gap' || (event.event === 'backup' && event.device === device.value)) load();
  });
}
