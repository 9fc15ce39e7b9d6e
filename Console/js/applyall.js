// Apply all pages (a whole machine in one job): the whole-device dry run is always shown first (per page:
// the version and why, identity match, before / to write / differs); only then, after a confirmation naming the
// device, its endpoint and unit and its identity, an operator may write. Live progress, then one result per page.
// Each page's latest version, or — a restore, as a banner opens it — the version last verified on the device (the
// daemon's `RestoreVersion`, the replacement policy's own choice: `versions: "lastVerified"`).
import { api, seg, waitForJob } from './api.js';
import { h, table, select, field, replace } from './dom.js';
import { badge, timeNode } from './format.js';
import { progressView } from './progress.js';
import { identityTable, diffTable, resultTable, steps, rollback, summary } from './reports.js';
import { takePreselectedDevice, takeRestore } from './selection.js';


function counts(report) {
  if (!report) return '—';
  const n = {};
  for (const r of report.registers) n[r.status] = (n[r.status] || 0) + 1;
  return Object.entries(n).map(([status, k]) => `${k} ${status}`).join(', ') || 'nothing to write';
}

function identityWords(report) {
  if (!report || !report.identity.length) return null;
  return report.identity.map((i) => `${i.registerId} = ${typeof i.actual === 'string' ? `“${i.actual}”` : JSON.stringify(i.actual)}`);
}

/** Whether a page's outcome lets the job count as done (a restore's page with nothing to restore does). */
function settled(p, dryRun) {
  return p.status === (dryRun ? 'planned' : 'succeeded') || p.status === 'nothingToRestore';
}

/** One row per page: status, version (and, for a restore, why that one), identity, register counts, why it did not
 * run. */
function pagesTable(all, id) {
  return table(
    ['Page', 'Version', 'Identity', 'Status', 'Registers'],
    all.pages.map((p) =>
      h(
        'tr',
        { dataset: { page: p.pageId, status: p.status, version: p.versionId || '' } },
        h('td', {}, p.pageId),
        h('td', {}, p.versionId ? `v${p.versionId}` : '—', p.restore ? h('div.muted.why', { dataset: { reason: p.restore.reason } }, p.restore.explanation) : null),
        h('td', {}, p.report ? (p.report.identity.length ? badge(p.report.identity.every((i) => i.matches) ? 'match' : 'differs') : h('span.muted', {}, 'none declared')) : '—'),
        h('td', {}, badge(p.status), p.status === 'notAttempted' && all.stoppedAt ? h('div.muted', {}, `stopped at ${all.stoppedAt}`) : null),
        h('td', {}, counts(p.report), p.error && p.status !== 'nothingToRestore' ? h('div.error', {}, p.error) : null, p.report && p.report.reason ? h('div.muted', {}, p.report.reason) : null),
      ),
    ),
    { id },
  );
}

/** Renders the whole-machine apply: choose a device, dry run (always), confirm, write, results per page. */
export async function render(root, ctx) {
  const devices = (await api('GET', '/v1/devices')).filter((d) => d.pages.length);
  if (!devices.length) {
    replace(root, h('h2', {}, 'Apply all pages'), h('p.card', {}, 'No configured device has pages.'));
    return;
  }
  const preselected = takePreselectedDevice();
  const first = devices.some((d) => d.id === preselected) ? preselected : devices[0].id;
  const devicePicker = select('all-device', devices.map((d) => [d.id, `${d.id} (${d.pages.join(', ')})`]), first);
  const onError = select('all-on-error', [['stop', 'stop at the first failure'], ['continue', 'continue with the rest'], ['rollback', 'roll back what was written']], 'stop');
  const onPageFailure = select('all-on-page-failure', [['stop', 'stop: later pages not attempted'], ['continue', 'continue with the next page']], 'stop');
  const asRestore = takeRestore();
  const versions = select('all-versions', [['latest', 'each page’s latest'], ['lastVerified', 'last verified on the device (restore)']], asRestore ? 'lastVerified' : 'latest');
  const out = h('div', { id: 'all-out' });
  let planned = null;

  function request() {
    const body = { onError: onError.value, onPageFailure: onPageFailure.value };
    if (versions.value === 'lastVerified') body.versions = 'lastVerified';
    return body;
  }

  function invalidate() {
    if (planned) replace(out, h('p.muted', {}, 'The choice changed: run the dry run again before applying.'));
    planned = null;
  }

  async function registersOf(all) {
    const regs = new Map();
    for (const p of all.pages) if (p.report) for (const [k, v] of await ctx.registers(p.pageId)) regs.set(k, v);
    return regs;
  }

  async function dryRun() {
    const deviceId = devicePicker.value;
    const body = request();
    replace(out, h('p.muted', {}, `Reading ${deviceId}…`));
    try {
      const job = await api('POST', `/v1/devices/${seg(deviceId)}/apply?wait=1`, { ...body, dryRun: true });
      const all = job.applyAll;
      if (!all) throw new Error(job.error || 'the dry run produced no report');
      const regs = await registersOf(all);
      const ready = all.pages.every((p) => settled(p, true)) && all.pages.some((p) => p.status === 'planned');
      planned = ready ? { deviceId, body, all } : null;
      const blocked = all.pages.filter((p) => !settled(p, true));
      replace(
        out,
        h('h3', {}, body.versions ? `Dry run of a restore: every page of ${deviceId}, each at the version last verified on it` : `Dry run: every page of ${deviceId}, in config order`),
        h('p.result', { id: 'all-dry-status', dataset: { status: ready ? 'planned' : 'refused' } }, ready ? badge('planned') : badge('refused'), ` ${all.pages.length} pages; nothing was written.`),
        pagesTable(all, 'all-dry-pages'),
        all.pages.map((p) =>
          p.report
            ? h(
                'section.page-part',
                { dataset: { page: p.pageId } },
                h('h4', {}, `${p.pageId} v${p.versionId}`),
                summary(p.report, `all-dry-status-${p.pageId}`),
                identityTable(p.report, `all-identity-${p.pageId}`),
                diffTable(p.report, regs, `all-diff-${p.pageId}`),
              )
            : null,
        ),
        planned && ctx.canOperate()
          ? h('button.danger', { type: 'button', id: 'apply-all-button', onclick: () => write(planned, regs) }, `Apply all pages to ${deviceId}…`)
          : !ctx.canOperate()
            ? h('p.notice', { id: 'apply-all-denied' }, `Your role (${ctx.role}) can run dry runs but not apply: ask an operator.`)
            : h('p.notice', { id: 'apply-all-blocked' }, blocked.length ? `Not every page can be applied (${blocked.map((p) => `${p.pageId}: ${p.status}`).join(', ')}); nothing can be written from here.` : 'No page has anything to write.'),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  async function write(plan, regs) {
    const writing = plan.all.pages.filter((p) => p.report);
    const reports = writing.map((p) => p.report);
    const r = reports[0];
    const identity = [...new Set(reports.flatMap((x) => identityWords(x) || []))];
    const ok = await ctx.confirm(
      `Write ${writing.length} pages to ${plan.deviceId}?`,
      [
        h('p', {}, h('strong', {}, plan.deviceId), ` (${r.endpoint} unit ${r.unit}), identity ${identity.length ? identity.join(', ') : 'no identity registers'}.`),
        h('ul', {}, writing.map((p) => h('li', {}, `${p.pageId} v${p.versionId}${p.restore ? ' (last verified on this device)' : ''}: ${p.report.registers.length} registers in ${p.report.plan.length} write requests`))),
        h('p', {}, `In this order; on error within a page: ${plan.body.onError}; after a page that fails: ${plan.body.onPageFailure}. Each page checks its identity again, and every value is read back and compared.`),
      ],
      `Write to ${plan.deviceId}`,
    );
    if (!ok) return;
    const progress = progressView();
    replace(out, h('h3', {}, `Applying every page to ${plan.deviceId}`), progress.el);
    try {
      // Each page's confirmed version goes with the write: 409 version_changed, nothing written, if any moved on.
      const expectVersions = Object.fromEntries(plan.all.pages.filter((p) => p.versionId).map((p) => [p.pageId, p.versionId]));
      const started = await api('POST', `/v1/devices/${seg(plan.deviceId)}/apply`, { ...plan.body, expectVersions });
      const job = await waitForJob(started.id, progress.update);
      planned = null;
      const all = job.applyAll;
      if (!all) {
        replace(out, h('p.result.bad', { id: 'apply-all-status' }, job.error || 'The job could not run.'));
        return;
      }
      const succeeded = all.pages.every((p) => settled(p, false));
      replace(
        out,
        h('h3', {}, `Result: ${plan.deviceId}`, ' ', h('span.muted', {}, 'finished ', timeNode(job.finishedAt))),
        h(
          'p.result',
          { id: 'apply-all-status', dataset: { status: succeeded ? 'succeeded' : 'failed' } },
          badge(succeeded ? 'succeeded' : 'failed'),
          ` ${all.pages.filter((p) => p.status === 'succeeded').length} of ${all.pages.length} pages succeeded`,
          all.stoppedAt ? h('div', {}, `Stopped at page ${all.stoppedAt}`) : null,
        ),
        pagesTable(all, 'apply-all-pages'),
        all.pages.map((p) =>
          p.report
            ? h(
                'section.page-part',
                { dataset: { page: p.pageId } },
                h('h4', {}, `${p.pageId} v${p.versionId}`),
                summary(p.report, `all-status-${p.pageId}`),
                steps('Before writing', p.report.beforeWrite),
                resultTable(p.report, regs, `all-results-${p.pageId}`),
                steps('After writing', p.report.afterWrite),
                rollback(p.report, regs, `all-rollback-${p.pageId}`),
              )
            : null,
        ),
      );
    } catch (error) {
      ctx.error(out, error);
    }
  }

  for (const control of [devicePicker, onError, onPageFailure, versions]) control.addEventListener('change', invalidate);
  replace(
    root,
    h('h2', {}, 'Apply all pages (a whole machine)'),
    h(
      'div.card',
      {},
      h('p.muted', {}, 'Every page of the device, in the order the config lists them, each with its latest template — or, for a restore, the version last verified on the device (as the replacement policy restores).'),
      h('div.row', {}, field('Device', devicePicker), field('Versions', versions), field('On error (within a page)', onError), field('After a page fails', onPageFailure)),
      h('button.primary', { type: 'button', id: 'all-dry-run-button', onclick: dryRun }, 'Dry run: every page'),
    ),
    h('div.card', {}, out),
  );
  // A banner's restore: the dry run is the first thing shown, without another click; writing still needs one.
  if (asRestore && devicePicker.value === preselected) await dryRun();
}
