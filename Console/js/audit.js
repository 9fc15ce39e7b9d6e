// Audit: every capture, replay and dry run, filtered by page, device, who and time (by the server); each replay
// links its hand-over certificate.
import { api } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { badge, timeNode, valueNode } from './format.js';
import { certificateLinks } from './reports.js';

function localToISO(value) {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** Renders the filters and the newest records first. */
export async function render(root, ctx) {
  const [pages, devices] = await Promise.all([api('GET', '/v1/pages'), api('GET', '/v1/devices')]);
  const page = select('audit-page', [['', 'any page'], ...pages.map((p) => [p.id, p.id])], '');
  const device = select('audit-device', [['', 'any device'], ...devices.map((d) => [d.id, d.id])], '');
  const who = h('input', { id: 'audit-who', type: 'text', placeholder: 'token:alice, uid:1000(ann) or token:', autocomplete: 'off' });
  const since = h('input', { id: 'audit-since', type: 'datetime-local', step: 1 });
  const until = h('input', { id: 'audit-until', type: 'datetime-local', step: 1 });
  const out = h('div', { id: 'audit-out' });

  async function load() {
    const query = new URLSearchParams({ limit: '200' });
    if (page.value) query.set('page', page.value);
    if (device.value) query.set('device', device.value);
    if (who.value.trim()) query.set('who', who.value.trim());
    if (localToISO(since.value)) query.set('since', localToISO(since.value));
    if (localToISO(until.value)) query.set('until', localToISO(until.value));
    try {
      const result = await api('GET', `/v1/audit?${query}`);
      const records = [...result.records].reverse();
      replace(
        out,
        h('p.muted', {}, `${records.length} record${records.length === 1 ? '' : 's'}${result.unreadable ? `; ${result.unreadable} unreadable lines` : ''}`),
        records.length
          ? table(
              ['Time', 'Kind', 'Who', 'Page', 'Device', 'Result', 'Registers'],
              records.map((r) =>
                h(
                  'tr',
                  { dataset: { kind: r.kind, who: r.who } },
                  h('td', {}, timeNode(r.time)),
                  h('td', {}, r.kind),
                  h('td', {}, r.who),
                  h('td', {}, r.pageId, r.templateVersion ? ` v${r.templateVersion}` : ''),
                  h('td', {}, r.device, h('div.muted', {}, `${r.endpoint} unit ${r.unit}`)),
                  h('td', {}, badge(r.result), r.message ? h('div.muted', {}, r.message) : null, r.kind === 'replay' && r.result !== 'started' ? certificateLinks(r.job) : null),
                  h(
                    'td',
                    {},
                    r.registers.length
                      ? h(
                          'details',
                          {},
                          h('summary', {}, `${r.registers.length} registers`),
                          h('ul.plain', {}, r.registers.map((g) => h('li', {}, `${g.registerId}: `, valueNode(g.before), ' → ', valueNode(g.after), ' ', badge(g.status)))),
                        )
                      : '—',
                  ),
                ),
              ),
              { id: 'audit-table' },
            )
          : null,
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  const form = h(
    'form.card',
    { id: 'audit-filter', onsubmit: (event) => { event.preventDefault(); load(); } },
    h('div.row', {}, field('Page', page), field('Device', device), field('Who', who)),
    h('div.row', {}, field('Since', since), field('Until', until)),
    h('button.primary', { type: 'submit' }, 'Filter'),
  );
  replace(root, h('h2', {}, 'Audit log'), form, h('div.card', {}, out));
  await load();
}
