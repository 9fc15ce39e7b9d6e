// Building DOM nodes without innerHTML: every value from the API becomes text, never markup.

/** h('tag.class#id', {attrs}, ...children): children are nodes, strings, numbers, arrays or null. */
export function h(spec, attrs = {}, ...children) {
  const match = /^([a-z0-9]+)((?:[.#][\w-]+)*)$/i.exec(spec);
  const el = document.createElement(match ? match[1] : spec);
  if (match && match[2]) {
    for (const part of match[2].match(/[.#][\w-]+/g)) {
      if (part[0] === '.') el.classList.add(part.slice(1));
      else el.id = part.slice(1);
    }
  }
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A table with a header row and body rows (arrays of cells); wrapped to scroll sideways on narrow screens. */
export function table(headers, rows, attrs = {}) {
  return h(
    'div.scroll',
    {},
    h(
      'table',
      attrs,
      h('thead', {}, h('tr', {}, headers.map((title) => h('th', { scope: 'col' }, title)))),
      h('tbody', {}, rows),
    ),
  );
}

/** A <select> of [value, label] options with `selected` chosen. */
export function select(id, options, selected, attrs = {}) {
  return h(
    'select',
    { id, ...attrs },
    options.map(([value, label]) => h('option', { value, selected: String(value) === String(selected) }, label)),
  );
}

/** A labelled form field. */
export function field(label, control) {
  return h('div.field', {}, h('label', { for: control.id }, label), control);
}

/** Replaces the children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}
