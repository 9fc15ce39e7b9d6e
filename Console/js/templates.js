// Pages and templates: every archived version (when, from which device, who), one template entry by entry.
import { api, seg } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { badge, timeNode, valueNode } from './format.js';
import { fleetDefinitionCard } from './fleetpage.js';

const skipReasons = { unset: 'still at its "not set" default', notCloned: 'not cloned (clone: false)', readOnly: 'read-only' };

async function detail(pageId, version, ctx, out) {
  replace(out, h('p.muted', {}, 'Loading…'));
  try {
    const t = await api('GET', `/v1/pages/${seg(pageId)}/templates/${seg(version)}`);
    const regs = await ctx.registers(pageId);
    replace(
      out,
      h('h3', {}, `${pageId} v${t.versionId || t.version}`),
      h(
        'dl.facts',
        {},
        h('dt', {}, 'Captured'),
        h('dd', {}, timeNode(t.capturedAt), ' by ', h('strong', {}, t.capturedBy || 'unknown')),
        h('dt', {}, 'From'),
        h('dd', {}, t.source.deviceId || 'ad-hoc endpoint', ` (${t.source.endpoint} unit ${t.source.unit})`),
        h('dt', {}, 'Identity'),
        h('dd', {}, t.source.identity.length ? t.source.identity.map((v) => h('span.ident', {}, `${v.registerId} = `, valueNode(v.value, null, v.valueData), ' ')) : '—'),
        h('dt', {}, 'Page hash'),
        h('dd.hash', {}, t.pageHash),
        t.applicableHere && !t.applicableHere.applicable
          ? [h('dt', {}, 'Applicable here'), h('dd.error', { dataset: { applicable: 'no' } }, 'no: ', t.applicableHere.refused.join('; '))]
          : null,
        t.applicableHere && t.applicableHere.leftOut.length ? [h('dt', {}, 'Left out here'), h('dd', {}, t.applicableHere.leftOut.join(', '))] : null,
      ),
      h('h4', {}, `Entries (${t.entries.length}, in write order)`),
      table(
        ['Register', 'Address', 'Value', 'Read at'],
        t.entries.map((e) => {
          const reg = regs.get(e.registerId);
          return h(
            'tr',
            { dataset: { register: e.registerId } },
            h('td', {}, reg && reg.name ? `${reg.name} ` : '', h('span.muted', {}, e.registerId)),
            h('td.num', {}, e.address),
            h('td.value', {}, valueNode(e.value, reg, e.valueData)),
            h('td', {}, timeNode(e.lastDate)),
          );
        }),
        { id: 'template-entries' },
      ),
      t.skipped.length
        ? [
            h('h4', {}, `Skipped (${t.skipped.length})`),
            table(
              ['Register', 'Address', 'Why'],
              t.skipped.map((s) => h('tr', {}, h('td', {}, s.registerId), h('td.num', {}, s.address), h('td', {}, skipReasons[s.reason] || s.reason))),
            ),
          ]
        : null,
    );
  } catch (error) {
    ctx.error(out, error);
  }
}

/** Renders the page picker, the version list and the selected version. */
export async function render(root, ctx) {
  const pages = await api('GET', '/v1/pages');
  const picker = select('tpl-page', pages.map((p) => [p.id, p.title ? `${p.title} (${p.id})` : p.id]), pages[0] && pages[0].id);
  const versions = h('div');
  const out = h('div.detail');
  const fleet = h('div');
  async function load() {
    const pageId = picker.value;
    replace(out);
    // In a fleet: whether this page is defined here as the fleet defines it (with the registers that differ).
    replace(fleet, await fleetDefinitionCard(pageId, ctx, load));
    const list = await api('GET', `/v1/pages/${seg(pageId)}/templates`);
    if (!list.length) {
      replace(versions, h('p.muted', {}, 'No template has been captured for this page yet.'));
      return;
    }
    // The daemon lists newest first (in a fleet: by archive time, then host, then number).
    const newestFirst = list;
    replace(
      versions,
      table(
        ['Version', 'Captured at', 'From', 'Entries', 'File', ''],
        newestFirst.map((t) =>
          h(
            'tr',
            { dataset: { version: t.id || t.version } },
            h('td.num', {}, `v${t.id || t.version}`),
            h('td', {}, timeNode(t.capturedAt)),
            h('td', {}, t.sourceDevice || '—'),
            h('td.num', {}, t.entryCount ?? '—'),
            h(
              'td',
              {},
              !t.checksumOK ? h('span.error', {}, t.problem || 'corrupt') : t.applicable === false ? h('span.error', { dataset: { applicable: 'no' } }, t.notApplicable) : badge('ok'),
            ),
            h('td', {}, h('button', { type: 'button', onclick: () => detail(pageId, t.id || t.version, ctx, out), disabled: !t.checksumOK }, 'Show')),
          ),
        ),
      ),
    );
    if (newestFirst[0].checksumOK) await detail(pageId, newestFirst[0].id || newestFirst[0].version, ctx, out);
  }
  picker.addEventListener('change', () => load().catch((e) => ctx.error(versions, e)));
  replace(root, h('h2', {}, 'Pages and templates'), fleet, h('div.card', {}, field('Page', picker), versions), h('div.card', {}, out));
  if (pages.length) await load();
  else replace(versions, h('p.muted', {}, 'No pages are configured.'));
}
