// Four-eyes change control (docs/CHANGE-CONTROL.md): request a change to a protected page (a dry run whose hash
// an approval signs), approve another person's request with a meaning and a reason, apply an approved one — each
// with the diff in view. The server decides every rule; the console only hides what a role cannot do.
import { api, seg } from './api.js';
import { h, select, field, replace, table } from './dom.js';
import { badge, timeNode } from './format.js';
import { diffTable, resultTable, summary } from './reports.js';

const closed = (r) => r.state === 'applied' || r.state === 'stale';
/** `v3`, or a fleet id as it is (`line-7-3`). */
const version = (id) => (/^\d+$/.test(id) ? `v${id}` : id);

/** Renders the request form, the list and the selected request. */
export async function render(root, ctx) {
  const pages = (await api('GET', '/v1/pages')).filter((p) => p.latestVersion !== undefined);
  const devices = await api('GET', '/v1/devices');
  const pagePicker = select('change-page', pages.map((p) => [p.id, p.title ? `${p.title} (${p.id})` : p.id]), pages[0] && pages[0].id);
  const devicePicker = h('select', { id: 'change-device' });
  const reason = h('input', { id: 'change-reason', type: 'text', placeholder: 'why the change is needed', autocomplete: 'off' });
  const list = h('div', { id: 'change-list' });
  const out = h('div', { id: 'change-out' });

  function fillDevices() {
    const candidates = devices.filter((d) => d.pages.includes(pagePicker.value)).map((d) => d.id);
    replace(devicePicker, candidates.map((d) => h('option', { value: d }, d)));
  }

  async function refresh(selected) {
    const all = await api('GET', '/v1/changes');
    replace(
      list,
      all.length
        ? table(
            ['Request', 'State', 'Page', 'Device', 'Requested by', ''],
            all.map((r) =>
              h(
                'tr',
                { dataset: { change: r.id, state: r.state } },
                h('td.value', {}, r.id.slice(0, 8)),
                h('td', {}, badge(r.state)),
                h('td', {}, `${r.pageId} ${version(r.versionId)}`),
                h('td', {}, r.device),
                h('td', {}, r.requested.who),
                h('td', {}, h('button', { type: 'button', onclick: () => show(r.id) }, 'Open')),
              ),
            ),
            { id: 'changes' },
          )
        : h('p.muted', {}, 'No change requests.'),
    );
    if (selected) await show(selected);
  }

  async function request() {
    replace(out, h('p.muted', {}, 'Reading the target for the dry run…'));
    try {
      const r = await api('POST', '/v1/changes', { page: pagePicker.value, device: devicePicker.value, reason: reason.value });
      reason.value = '';
      await refresh(r.id);
    } catch (error) {
      ctx.error(out, error);
    }
  }

  async function show(id) {
    try {
      const r = await api('GET', `/v1/changes/${seg(id)}`);
      const regs = await ctx.registers(r.pageId);
      replace(
        out,
        h('h3', {}, `Change ${r.id.slice(0, 8)}: ${r.pageId} ${version(r.versionId)} on ${r.device} `, badge(r.state)),
        h('p.muted', { id: 'change-hash' }, r.hash),
        signatures(r),
        r.outcome ? h('p', { id: 'change-outcome' }, `Outcome: ${r.outcome}`) : '',
        h('h4', {}, 'The diff (the request\'s dry run)'),
        diffTable(r.plan, regs, 'change-diff'),
        actions(r, regs),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  function signatures(r) {
    return table(
      ['Signed by', 'Meaning', 'When', 'Reason'],
      [r.requested, ...r.approvals].map((s) => h('tr', {}, h('td', {}, s.who), h('td', {}, s.meaning), h('td', {}, timeNode(s.time)), h('td', {}, s.reason))),
      { id: 'change-signatures' },
    );
  }

  /** What the signed-in person may do with the request: sign it (an approver, not its requester), apply it. */
  function actions(r, regs) {
    if (closed(r)) return h('p.notice', {}, 'This request is closed.');
    const parts = [];
    const mayApprove = ctx.role === 'approver' || ctx.role === 'administrator';
    if (mayApprove && ctx.principal !== r.requested.who) {
      const meaning = select('change-meaning', [['approval', 'approval'], ['review', 'review'], ['responsibility', 'responsibility']], 'approval');
      const why = h('input', { id: 'change-sign-reason', type: 'text', placeholder: 'reason', autocomplete: 'off' });
      parts.push(
        h('div.row', {}, field('Meaning', meaning), field('Reason', why)),
        h('button.primary', { type: 'button', id: 'change-sign', onclick: () => sign(r, meaning.value, why.value) }, 'Sign'),
      );
    } else if (ctx.principal === r.requested.who) {
      parts.push(h('p.notice', { id: 'change-own' }, 'You requested this change: another person must approve it.'));
    }
    if (ctx.canOperate() && r.state === 'approved') {
      parts.push(h('button.danger', { type: 'button', id: 'change-apply', onclick: () => applyChange(r, regs) }, `Apply to ${r.device}…`));
    }
    return h('div', {}, parts);
  }

  async function sign(r, meaning, why) {
    try {
      await api('POST', `/v1/changes/${seg(r.id)}/approve`, { meaning, reason: why });
      await refresh(r.id);
    } catch (error) {
      ctx.error(out, error);
    }
  }

  async function applyChange(r, regs) {
    const differing = r.plan.registers.filter((x) => x.status === 'differs').length;
    const ok = await ctx.confirm(
      `Write change ${r.id.slice(0, 8)} to ${r.device}?`,
      [
        h('p', {}, `${r.pageId} ${version(r.versionId)}: ${differing} of ${r.plan.registers.length} registers differ. Approved by `, r.approvals.filter((a) => a.meaning === 'approval').map((a) => a.who).join(', '), '.'),
        h('p', {}, 'Nothing is written if the machine changed since the request: the approval is then stale.'),
      ],
      `Write to ${r.device}`,
    );
    if (!ok) return;
    try {
      const job = await api('POST', `/v1/changes/${seg(r.id)}/apply`, {});
      await refresh();
      replace(out, h('h3', {}, `Applied: ${r.device}`), summary(job.replay, 'change-status'), resultTable(job.replay, regs, 'change-results'));
    } catch (error) {
      await refresh();
      ctx.error(out, error);
    }
  }

  pagePicker.addEventListener('change', fillDevices);
  fillDevices();
  replace(
    root,
    h('h2', {}, 'Changes (four eyes)'),
    ctx.canOperate()
      ? h(
          'div.card',
          {},
          h('div.row', {}, field('Page', pagePicker), field('Device', devicePicker), field('Reason', reason)),
          h('button.primary', { type: 'button', id: 'change-request', onclick: request }, 'Request: dry run and file'),
        )
      : '',
    h('div.card', {}, list),
    h('div.card', {}, out),
  );
  await refresh();
}
