// Building the page from data without ever parsing it as HTML: every value becomes text.

/** An element: `props` sets properties (`class`, `text`, `on…` handlers, `hidden`, …) or
 * attributes (`aria-…`, `data-…`, `for`); children are nodes or strings (text). */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'text') element.textContent = value;
    else if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key.includes('-') || key === 'for' || key === 'role' || key === 'scope') {
      element.setAttribute(key, value === true ? '' : value);
    } else element[key] = value;
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return element;
}

/** Replaces what `node` holds. */
export function show(node, ...children) {
  node.replaceChildren(...children.flat().filter((child) => child !== undefined && child !== null));
}

/** A moment (milliseconds since 1970) as people read it, in the browser's zone. */
export function readableTime(millis) {
  if (millis === undefined || millis === null) return '—';
  const date = new Date(Number(millis));
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A labelled field: the label, then the control (its `id` ties them). */
export function field(labelText, control) {
  return h('div', { class: 'field' }, h('label', { for: control.id, text: labelText }), control);
}

/** A table with a caption, a header row and body rows (arrays of cells). */
export function table(caption, headers, rows, emptyText = 'None.') {
  if (rows.length === 0) return h('p', { class: 'muted', text: `${caption}: ${emptyText}` });
  return h('div', { class: 'table-wrap' },
    h('table', {},
      h('caption', { text: caption }),
      h('thead', {}, h('tr', {}, headers.map((name) => h('th', { scope: 'col', text: name })))),
      h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell) => h('td', {}, cell)))))));
}
