// A replay report's parts, shown the same way by every view that shows a report (apply, apply all, audit): the
// identity check, the dry-run diff, per-register results, steps, rollback, the one-line summary and the links to a
// replay's hand-over certificate.
import { h, table } from './dom.js';
import { badge, valueNode } from './format.js';

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

// A replay's hand-over certificate (docs/CERTIFICATE.md): the files the daemon makes and signs, as downloads.
const certificateFiles = [['pdf', 'PDF'], ['pdf.sig', 'signature'], ['html', 'HTML'], ['html.sig', 'signature']];

/** The download links of the certificate of the replay whose audit job is `job` (null without one). */
export function certificateLinks(job) {
  if (!job) return null;
  return h(
    'div.certificate',
    { dataset: { job } },
    'Certificate: ',
    ...certificateFiles.flatMap(([format, label], i) => [
      i ? ' · ' : '',
      h('a', { href: `/v1/certificates/${encodeURIComponent(job)}/${format}`, download: '', dataset: { format } }, label),
    ]),
  );
}
