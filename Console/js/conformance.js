// A page's conformance on a device (conforms, drifted with what differs and since when, or why unknown),
// shown the same way by the devices and rollout views.
import { h } from './dom.js';
import { badge, timeNode, valueNode } from './format.js';

/** A PageConformance shown: its state, and the drifted registers (expected vs live, since when) or why unknown. */
export function conformanceNode(c, regs) {
  if (!c) return h('span.muted', {}, '—');
  const parts = [badge(c.state)];
  if (c.state === 'drifted') {
    parts.push(
      h('span.muted', {}, ' since ', timeNode(c.since)),
      h(
        'ul.plain.drift',
        {},
        c.drifted.map((d) => {
          const reg = regs && regs.get(d.registerId);
          return h('li', { dataset: { register: d.registerId } }, reg && reg.name ? `${reg.name} ` : '', h('span.muted', {}, d.registerId), ': expected ', valueNode(d.expected, reg, d.expectedData), ', live ', valueNode(d.live, reg, d.liveData));
        }),
      ),
    );
  } else if (c.state === 'conforms') {
    if (c.checkedAt) parts.push(h('span.muted', {}, ' checked ', timeNode(c.checkedAt)));
  } else if (c.reason) {
    parts.push(h('span.muted', {}, ` ${c.reason}`));
  }
  return parts;
}
