// Apply ("use last settings"): the dry-run diff is always shown first; only then, after a confirmation that
// names the device and its identity, an operator may write. Live progress, then every register's fate.
import { api, seg, waitForJob } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { badge, valueNode, timeNode } from './format.js';
import { progressView } from './progress.js';

/** The identity check of a replay report (the table's `id` defaults to the single-page view's). */
export function identityTable(report, id = 'identity') {
  if (!report.identity.length) return h('p.muted', {}, 'This page declares no identity registers.');
  return table(
    ['Identity', 'Template source', 'Target', ''],
    report.identity.map((i) =>
      h('tr', {}, h('td', {}, i.registerId), h('td.value', {}, valueNode(i.expected)), h('td.value', {}, valueNode(i.actual)), h('td', {}, badge(i.matches ? 'match' : 'differs'), i.message ? ` ${i.message}` : '')),
    ),
    { id },
  );
}

/** A dry run's diff: what the target holds, what would be written, whether it differs. */
export function diffTable(report, regs, id = 'diff') {
  return table(
    ['Register', 'Target now', 'To write', ''],
    report.registers.map((r) => {
      const reg = regs.get(r.registerId);
      return h(
        'tr',
        { dataset: { register: r.registerId, status: r.status } },
        h('td', {}, reg && reg.name ? `${reg.name} ` : '', h('span.muted', {}, r.registerId)),
        h('td.value', {}, r.before === undefined ? h('span.muted', {}, r.message || 'not read') : valueNode(r.before, reg, null, r.beforeUnset)),
        h('td.value', {}, valueNode(r.expected, reg, r.expectedData)),
        h('td', {}, badge(r.status)),
      );
    }),
    { id },
  );
}

/** A replay's per-register result. */
export function resultTable(report, regs, id = 'results') {
  return table(
    ['Register', 'Before', 'Expected', 'Read back', 'Result'],
    report.registers.map((r) => {
      const reg = regs.get(r.registerId);
      const why = r.exceptionCode !== undefined ? ` (exception ${r.exceptionCode})` : '';
      return h(
        'tr',
        { dataset: { register: r.registerId, status: r.status } },
        h('td', {}, reg && reg.name ? `${reg.name} ` : '', h('span.muted', {}, r.registerId)),
        h('td.value', {}, r.before === undefined ? '—' : valueNode(r.before, reg, null, r.beforeUnset)),
        h('td.value', {}, valueNode(r.expected, reg, r.expectedData)),
        h('td.value', {}, r.actual === undefined ? '—' : valueNode(r.actual, reg, r.actualData)),
        h('td', {}, badge(r.status), why, r.message ? h('div.muted', {}, r.message) : null),
      );
    }),
    { id },
  );
}

/** The beforeWrite / afterWrite steps of a replay. */
export function steps(title, list) {
  if (!list || !list.length) return null;
  return [h('h4', {}, title), table(['Address', 'Value', 'Read back', ''], list.map((s) => h('tr', {}, h('td.num', {}, s.address), h('td.num', {}, s.value), h('td.num', {}, s.readBack ?? '—'), h('td', {}, badge(s.status), s.message ? ` ${s.message}` : ''))))];
}

/** The rollback's outcome, when the replay rolled back. */
export function rollback(report, regs, id = 'rollback') {
  if (!report.rollback) return null;
  const rb = report.rollback;
  return [
    h('h4', {}, 'Rollback'),
    h('p', { id }, rb.restored ? badge('verified') : badge('failed'), rb.restored ? ' every touched register was restored and read back' : ' the target could not be fully restored'),
    table(['Register', 'Restored to', 'Read back', ''], rb.registers.map((r) => h('tr', {}, h('td', {}, r.registerId), h('td.value', {}, valueNode(r.expected, regs.get(r.registerId), null, r.expectedUnset)), h('td.value', {}, r.actual === undefined ? '—' : valueNode(r.actual, regs.get(r.registerId), null, r.actualUnset)), h('td', {}, badge(r.status), r.message ? ` ${r.message}` : '')))),
  ];
}

/** One line: the replay's status, page, version, target and register counts. */
export function summary(report, id = 'apply-status') {
  const counts = {};
  for (const r of report.registers) counts[r.status] = (counts[r.status] || 0) + 1;
  return h(
    'p.result',
    { id, dataset: { status: report.status } },
    badge(report.status),
    ` ${report.pageId} v${report.templateVersion} → ${report.target}: `,
    Object.entries(counts).map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing to write',
    report.reason ? h('div', {}, report.reason) : null,
    report.stoppedAt ? h('div', {}, `Stopped at ${report.stoppedAt}`) : null,
    report.warnings && report.warnings.length ? h('ul.warnings', {}, report.warnings.map((w) => h('li', {}, w))) : null,
  );
}

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
