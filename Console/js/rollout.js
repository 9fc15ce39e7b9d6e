// Rollout: which configured devices hold a page's latest template, an older one, a drifted one, none (never
// applied, or partially written by a failed replay).
import { api, seg } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { badge, timeNode } from './format.js';
import { conformanceNode } from './conformance.js';

/** Renders the rollout of one page (chosen from the configured pages). */
export async function render(root, ctx) {
  const pages = await api('GET', '/v1/pages');
  if (!pages.length) {
    replace(root, h('h2', {}, 'Rollout'), h('p.card', {}, 'No pages are configured.'));
    return;
  }
  const picker = select('rollout-page', pages.map((p) => [p.id, p.title ? `${p.title} (${p.id})` : p.id]), pages[0].id);
  const out = h('div', { id: 'rollout-out' });

  async function show() {
    try {
      const rollout = await api('GET', `/v1/pages/${seg(picker.value)}/rollout`);
      const regs = await ctx.registers(rollout.pageId);
      replace(
        out,
        h(
          'p',
          { id: 'rollout-latest' },
          rollout.latestVersion ? `Latest template: v${rollout.latestVersion}. ` : 'No template archived yet. ',
          Object.entries(rollout.counts).map(([standing, n]) => h('span.ident', {}, badge(standing), ` ${n}`)),
        ),
        table(
          ['Device', 'Standing', 'Applied', 'Conformance'],
          rollout.devices.map((d) => {
            const applied = d.conformance.applied;
            return h(
              'tr',
              { dataset: { device: d.device, standing: d.standing } },
              h('td', {}, d.device),
              h('td', {}, badge(d.standing)),
              h('td', {}, applied ? [`v${applied.versionId}`, h('div.muted', {}, timeNode(applied.appliedAt), ` by ${applied.appliedBy}`)] : h('span.muted', {}, d.standing === 'partiallyWritten' ? 'none (partially written)' : 'never')),
              h('td', {}, conformanceNode(d.conformance, regs)),
            );
          }),
          { id: 'rollout-table' },
        ),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  picker.addEventListener('change', show);
  replace(
    root,
    h('h2', {}, 'Rollout: who holds the latest template'),
    h('div.card', {}, h('div.row', {}, field('Page', picker)), out),
  );
  await show();
}
