// The security audit (links, logins, lockouts, disabled principals, removed pseudo users) and
// the dead letters, newest first, filtered as you type; "Older" reads the next page.
import { h, show, field, table, readableTime } from '/console/dom.js';
import { sayError } from '/console/status.js';

export async function renderSecurity(view, session) {
  const events = listing(session, {
    id: 'events', path: '/security-audit', key: 'events', caption: 'Security events',
    headers: ['When', 'Event', 'Actor', 'Subject', 'Account', 'Client', 'Detail'],
    kind: (event) => event.event,
    cells: (event) => [readableTime(event.at), event.event, h('code', { text: event.actor }),
      event.subjectID ?? '—', event.account ?? '—', event.clientAddress ?? '—', event.detail],
  });
  const letters = listing(session, {
    id: 'dead-letters', path: '/dead-letters', key: 'deadLetters', caption: 'Dead letters',
    headers: ['Failed', 'Message', 'Recipients', 'Attempts', 'Bytes', 'Reason'],
    kind: (letter) => (letter.commandID ? 'command result' : 'push'),
    cells: (letter) => [readableTime(letter.failedAt), h('code', { text: letter.pushMessageID }),
      letter.recipients.join(', '), String(letter.attempts), String(letter.payloadBytes), letter.reason],
  });
  show(view, h('h1', { text: 'Security' }),
    h('section', { 'aria-labelledby': 'events-heading' }, h('h2', { id: 'events-heading', text: 'Security audit' }),
      events.element),
    h('section', { 'aria-labelledby': 'dead-letters-heading' },
      h('h2', { id: 'dead-letters-heading', text: 'Dead letters' }), letters.element));
  await Promise.all([events.more(), letters.more()]);
}

/** A newest-first listing with a kind filter and a text filter over every column. */
function listing(session, spec) {
  let rows = [];
  let next;
  let exhausted = false;
  const text = h('input', { id: `${spec.id}-filter`, type: 'search', spellcheck: false, oninput: render });
  const kind = h('select', { id: `${spec.id}-kind`, onchange: render }, h('option', { value: '', text: 'all' }));
  const body = h('div', {});
  const older = h('button', { type: 'button', text: 'Older', onclick: () => more() });
  const element = h('div', {},
    h('div', { class: 'inline' }, field('Filter', text), field('Kind', kind)), body, older);

  function render() {
    const needle = text.value.trim().toLowerCase();
    const shown = rows.filter((row) => (!kind.value || spec.kind(row) === kind.value)
      && (!needle || Object.values(row).flat().join(' ').toLowerCase().includes(needle)));
    show(body, table(`${spec.caption}: ${shown.length} of ${rows.length} read`, spec.headers, shown.map(spec.cells),
      'nothing recorded.'));
    older.hidden = exhausted;
  }

  async function more() {
    try {
      const page = await session.get(`${spec.path}?limit=100${next ? `&paginationKey=${next}` : ''}`);
      rows = rows.concat(page[spec.key]);
      next = page.nextPaginationKey;
      exhausted = !next;
      const kinds = [...new Set(rows.map(spec.kind))].sort();
      const chosen = kind.value;
      show(kind, h('option', { value: '', text: 'all' }), kinds.map((k) => h('option', { value: k, text: k })));
      kind.value = chosen;
      render();
    } catch (error) {
      sayError(error);
    }
  }
  return { element, more };
}
