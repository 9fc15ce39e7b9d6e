// Apply ("use last settings"): the dry-run diff is always shown first; only then, after a confirmation that
// names the device and its identity, an operator may write. Live progress, then every register's fate.
import { api, seg, waitForJob } from './api.js';
import { h, select, field, replace } from './dom.js';
import { timeNode } from './format.js';
import { progressView } from './progress.js';
import { identityTable, diffTable, resultTable, steps, rollback, summary, certificateLinks } from './reports.js';

/** Renders the apply form: choose, dry run (always), confirm, write, results. */
export async function render(root, ctx) {
  const pages = (await api('GET', '/v1/pages')).filter((p) => p.latestVersion !== undefined);
  if (!pages.length) {
    replace(root, h('h2', {}, 'Apply'), h('p.card', {}, 'No page has a template yet: capture one first.'));
    return;
  }
  const devices = await api('GET', '/v1/devices');
  const pagePicker = select('apply-page', pages.map((p) => [p.id, p.title ? `${p.title} (${p.id})` : p.id]), pages[0].id);
  const versionPicker = h('select', { id: 'apply-version' });
  const targetKind = select('apply-target-kind', [['device', 'A configured device'], ['endpoint', 'An ad-hoc endpoint']], 'device');
  const devicePicker = h('select', { id: 'apply-device' });
  const endpoint = h('input', { id: 'apply-endpoint', type: 'text', placeholder: 'tcp://192.168.1.20:502', autocomplete: 'off' });
  const unit = h('input', { id: 'apply-unit', type: 'number', min: 1, max: 247, value: 1 });
  const onError = select('apply-on-error', [['stop', 'stop at the first failure'], ['continue', 'continue with the rest'], ['rollback', 'roll back what was written']], 'stop');
  const deviceField = field('Target device', devicePicker);
  const endpointFields = h('div.row', { hidden: true }, field('Endpoint', endpoint), field('Unit', unit));
  const out = h('div', { id: 'apply-out' });
  let planned = null;

  async function fill() {
    const page = pages.find((p) => p.id === pagePicker.value);
    const versions = await api('GET', `/v1/pages/${seg(page.id)}/templates`);
    replace(
      versionPicker,
      h('option', { value: '' }, `latest (v${page.latestVersionId || page.latestVersion})`),
      versions.map((v) => h('option', { value: v.id || v.version, disabled: !v.checksumOK }, `v${v.id || v.version} — ${v.sourceDevice || '?'}, captured ${v.capturedAt ? v.capturedAt.slice(0, 16).replace('T', ' ') : '?'}`)),
    );
    const candidates = devices.filter((d) => d.pages.includes(page.id)).map((d) => d.id);
    const previous = devicePicker.value;
    replace(devicePicker, candidates.map((d) => h('option', { value: d, selected: d === previous }, d)));
    invalidate();
  }

  function request() {
    const body = { onError: onError.value };
    if (versionPicker.value) body.version = versionPicker.value; // "3" or "<host>-<n>" in a fleet
    if (targetKind.value === 'device') body.device = devicePicker.value;
    else {
      body.endpoint = endpoint.value.trim();
      body.unit = Number(unit.value);
    }
    return body;
  }

  function invalidate() {
    if (planned) replace(out, h('p.muted', {}, 'The choice changed: run the dry run again before applying.'));
    planned = null;
  }

  async function dryRun() {
    const body = request();
    replace(out, h('p.muted', {}, 'Reading the target…'));
    try {
      const job = await api('POST', `/v1/pages/${seg(pagePicker.value)}/apply?wait=1`, { ...body, dryRun: true });
      const report = job.replay;
      if (!report) throw new Error(job.error || 'the dry run produced no report');
      const regs = await ctx.registers(report.pageId);
      planned = report.status === 'planned' ? { body, report } : null;
      const differing = report.registers.filter((r) => r.status === 'differs').length;
      replace(
        out,
        h('h3', {}, 'Dry run: what would be written'),
        summary(report),
        h('p', {}, `${differing} of ${report.registers.length} registers differ on the target; ${report.plan.length} write requests planned.`),
        identityTable(report),
        h('h4', {}, 'Registers'),
        diffTable(report, regs),
        planned && ctx.canOperate()
          ? h('button.danger', { type: 'button', id: 'apply-button', onclick: () => write(planned, regs) }, `Apply to ${report.target}…`)
          : !ctx.canOperate()
            ? h('p.notice', { id: 'apply-denied' }, `Your role (${ctx.role}) can run dry runs but not apply: ask an operator.`)
            : h('p.notice', {}, 'This replay is refused; nothing can be applied.'),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  async function write(plan, regs) {
    const r = plan.report;
    const identity = r.identity.length ? r.identity.map((i) => `${i.registerId} = ${typeof i.actual === 'string' ? `“${i.actual}”` : JSON.stringify(i.actual)}`).join(', ') : 'no identity registers';
    const ok = await ctx.confirm(
      `Write ${r.pageId} v${r.templateVersion} to ${r.target}?`,
      [
        h('p', {}, h('strong', {}, `${r.target}`), ` (${r.endpoint} unit ${r.unit}), identity ${identity}.`),
        h('p', {}, `${r.registers.length} registers in ${r.plan.length} write requests; on error: ${plan.body.onError}. Every value is read back and compared.`),
      ],
      `Write to ${r.target}`,
    );
    if (!ok) return;
    const progress = progressView();
    replace(out, h('h3', {}, `Applying to ${r.target}`), progress.el);
    try {
      // The write carries the version the operator confirmed: 409 version_changed if the request now resolves to another.
      const started = await api('POST', `/v1/pages/${seg(r.pageId)}/apply`, { ...plan.body, expectVersion: r.templateVersionId });
      const job = await waitForJob(started.id, progress.update);
      planned = null;
      if (!job.replay) {
        replace(out, h('p.result.bad', { id: 'apply-status' }, job.error || 'The replay could not run.'));
        return;
      }
      const report = job.replay;
      replace(
        out,
        h('h3', {}, `Result: ${r.target}`, ' ', h('span.muted', {}, 'finished ', timeNode(job.finishedAt))),
        summary(report),
        identityTable(report),
        steps('Before writing', report.beforeWrite),
        h('h4', {}, 'Registers'),
        resultTable(report, regs),
        steps('After writing', report.afterWrite),
        rollback(report, regs),
        h('p.muted', {}, `${report.requests} requests, ${report.writeFrames} write frames${report.fellBackToFC06 ? ', fell back to FC06' : ''}.`),
        report.auditJob ? h('p.muted', { id: 'apply-audit-job' }, `Audit job ${report.auditJob}`) : null,
        certificateLinks(report.auditJob),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  targetKind.addEventListener('change', () => {
    deviceField.hidden = targetKind.value !== 'device';
    endpointFields.hidden = targetKind.value === 'device';
    invalidate();
  });
  pagePicker.addEventListener('change', () => fill().catch((e) => ctx.error(out, e)));
  for (const control of [versionPicker, devicePicker, endpoint, unit, onError]) control.addEventListener('change', invalidate);
  endpoint.addEventListener('input', invalidate);

  replace(
    root,
    h('h2', {}, 'Apply (use last settings)'),
    h(
      'div.card',
      {},
      h('div.row', {}, field('Page', pagePicker), field('Version', versionPicker), field('Target', targetKind), deviceField, endpointFields, field('On error', onError)),
      h('button.primary', { type: 'button', id: 'dry-run-button', onclick: dryRun }, 'Dry run: show the diff'),
    ),
    h('div.card', {}, out),
  );
  await fill();
}
