// Capture ("save"): read a page from its reference device and archive it, after a confirmation.
import { api, seg, waitForJob } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { valueNode } from './format.js';
import { progressView } from './progress.js';

const skipReasons = { unset: 'still at its "not set" default', notCloned: 'not cloned (clone: false)', readOnly: 'read-only' };

function outcome(report, regs) {
  if (report.archived) {
    return [
      h('p.result.ok', { id: 'capture-result', dataset: { version: report.version } }, `Archived ${report.pageId} v${report.versionId || report.version}: ${report.entryCount} registers from ${report.device} in ${report.requests} requests.`),
      report.skipped.length
        ? [
            h('h4', {}, `Skipped (${report.skipped.length})`),
            table(['Register', 'Address', 'Why'], report.skipped.map((s) => h('tr', {}, h('td', {}, s.registerId), h('td.num', {}, s.address), h('td', {}, skipReasons[s.reason] || s.reason)))),
          ]
        : null,
    ];
  }
  return [
    h('p.result.bad', { id: 'capture-result' }, `Nothing was archived${report.error ? `: ${report.error}` : ''}; the previous template stays current.`),
    report.problems.length
      ? table(
          ['Register', 'Address', 'Value read', 'Problem'],
          report.problems.map((p) =>
            h('tr', {}, h('td', {}, p.registerId), h('td.num', {}, p.address), h('td.value', {}, p.value === undefined ? '—' : valueNode(p.value, regs.get(p.registerId), p.valueData)), h('td.error', {}, p.rule)),
          ),
        )
      : null,
  ];
}

/** Renders the capture form. */
export async function render(root, ctx) {
  const pages = await api('GET', '/v1/pages');
  const pagePicker = select('cap-page', pages.map((p) => [p.id, p.title ? `${p.title} (${p.id})` : p.id]), pages[0] && pages[0].id);
  const devicePicker = h('select', { id: 'cap-device' });
  const out = h('div', { id: 'capture-out' });
  function fillDevices() {
    const page = pages.find((p) => p.id === pagePicker.value);
    replace(devicePicker, (page ? page.devices : []).map((d) => h('option', { value: d }, d)));
  }
  pagePicker.addEventListener('change', fillDevices);
  fillDevices();

  async function run() {
    const pageId = pagePicker.value;
    const device = devicePicker.value;
    const page = pages.find((p) => p.id === pageId);
    const ok = await ctx.confirm(
      `Capture ${page.title || pageId} from ${device}?`,
      [h('p', {}, `Reads every register of the page from ${device} and archives them as v${(page.latestVersion || 0) + 1}, if every value is valid. Nothing is written to the device.`)],
      'Capture',
    );
    if (!ok) return;
    const progress = progressView();
    replace(out, progress.el);
    try {
      const started = await api('POST', `/v1/pages/${seg(pageId)}/capture`, { device });
      const job = await waitForJob(started.id, progress.update);
      const regs = await ctx.registers(pageId);
      replace(out, job.capture ? outcome(job.capture, regs) : h('p.result.bad', { id: 'capture-result' }, job.error || 'The capture could not run.'));
      const fresh = await api('GET', '/v1/pages');
      pages.splice(0, pages.length, ...fresh);
    } catch (error) {
      ctx.error(out, error);
    }
  }

  replace(
    root,
    h('h2', {}, 'Capture'),
    h(
      'div.card',
      {},
      h('p', {}, 'Save the settings of a reference machine: the page is read fresh, validated, and archived as the next version.'),
      h('div.row', {}, field('Page', pagePicker), field('From device', devicePicker)),
      ctx.canOperate()
        ? h('button.primary', { type: 'button', id: 'capture-button', onclick: run }, 'Capture…')
        : h('p.notice', { id: 'capture-denied' }, `Your role (${ctx.role}) can look but not capture: ask an operator.`),
    ),
    h('div.card', {}, out),
  );
}
