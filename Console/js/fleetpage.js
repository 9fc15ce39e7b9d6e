// A page whose definition here differs from the fleet's (health's fleet.differingPages): the registers that differ,
// and, for an operator, the explicit and audited step of taking the fleet's definition.
import { api, seg } from './api.js';
import { h, table } from './dom.js';

/** The rows of one other host's difference: each register field that differs, each register only one side has. */
function rows(d) {
  const out = [];
  for (const r of d.registers || []) {
    const cells = (what, here, there) =>
      h('tr', { dataset: { register: r.registerId, host: d.host } }, h('td', {}, d.host), h('td', {}, r.registerId), h('td', {}, what), h('td.value', {}, here ?? '—'), h('td.value', {}, there ?? '—'));
    if (r.presence === 'both') for (const f of r.fields) out.push(cells(f.field, f.here, f.there));
    else out.push(cells(r.presence === 'only-here' ? 'only here' : "only in the fleet's", null, null));
  }
  for (const f of d.pageFields || []) {
    out.push(h('tr', { dataset: { host: d.host } }, h('td', {}, d.host), h('td.muted', {}, '(page)'), h('td', {}, f.field), h('td.value', {}, f.here ?? '—'), h('td.value', {}, f.there ?? '—')));
  }
  return out;
}

/**
 * The card shown above a page's versions when its definition here differs from another host's (null when it does
 * not, or the host is in no fleet). `onTaken` runs after the fleet's definition was taken.
 */
export async function fleetDefinitionCard(pageId, ctx, onTaken) {
  const health = await api('GET', '/v1/health');
  const differing = ((health.fleet && health.fleet.differingPages) || []).filter((d) => d.pageId === pageId);
  if (!differing.length) return null;
  const latest = differing.find((d) => d.fleetLatest);
  const out = h('div');
  async function take() {
    const reason = h('input', { id: 'take-reason', type: 'text', maxlength: 500, required: true });
    const ok = await ctx.confirm(
      `Take the fleet's definition of ${pageId}?`,
      [
        h('p', {}, `From now on this host uses the definition version ${latest.version} of ${latest.host} was captured against, in place of its config's: the registers listed differ. Audited.`),
        h('label', { for: 'take-reason' }, 'Why'),
        reason,
      ],
      "Take the fleet's definition",
    );
    if (!ok) return;
    try {
      const query = `version=${seg(latest.version)}&reason=${seg(reason.value || 'taken in the console')}`;
      await api('POST', `/v1/fleet/pages/${seg(pageId)}/take?${query}`);
      ctx.status(`This host now uses the fleet's definition of ${pageId}.`);
      await onTaken();
    } catch (error) {
      ctx.error(out, error);
    }
  }
  return h(
    'div.card.warn',
    { id: 'fleet-definition', dataset: { page: pageId } },
    h('h3', {}, `This host's definition of ${pageId} differs from the fleet's`),
    h('p', {}, "Another host's version is written here only under the definition it was captured against; until then a replay of it is refused before any frame."),
    table(['Host', 'Register', 'What', 'Here', "The other host's"], differing.flatMap(rows), { id: 'definition-differences' }),
    latest && ctx.canOperate()
      ? h('button.primary', { type: 'button', id: 'take-definition', onclick: take }, `Take the fleet's definition (${latest.version})…`)
      : latest
        ? h('p.notice', {}, `An operator can take the fleet's definition (${latest.version}).`)
        : null,
    out,
  );
}
