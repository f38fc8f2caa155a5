// One topic: its ACL as a matrix with a staged batch (previewed, then applied at once),
// explain, who can, subscribers, a test push watched to each device, and the audit trail.
import { h, show, field, table, readableTime } from '/console/dom.js';
import { topicPath, isTopic, resolvePrincipal } from '/console/api.js';
import { say, sayError, describe } from '/console/status.js';

const actions = ['SUBSCRIBE_TO_TOPIC', 'SEND_MESSAGE_TO_TOPIC'];
const shortAction = { SUBSCRIBE_TO_TOPIC: 'Subscribe', SEND_MESSAGE_TO_TOPIC: 'Send' };
const principalKinds = { UserID: 'user', GroupID: 'group', ThingID: 'thing' };

/** An entry's subject name, linked to the principal's page when the subject is one principal. */
function subjectName(subject, name) {
  const [kind, id] = [subject.slice(0, subject.indexOf(':')), subject.slice(subject.indexOf(':') + 1)];
  if (!name) return null;
  if (!principalKinds[kind] || id === 'ANY_AUTHENTICATED_USER' || id === 'ANONYMOUS_USER') {
    return h('span', { class: 'principal', text: name });
  }
  return h('a', { class: 'principal', text: name,
    href: `#/principal?p=${encodeURIComponent(`${principalKinds[kind]}:${id}`)}` });
}

export async function renderTopic(view, session, query) {
  const scope = query.get('scope') ?? 'app';
  const name = query.get('name') ?? '';
  if (!isTopic(scope, name)) {
    // A crafted link (`scope=group/..`) would reach another topic than the one it shows.
    show(view,
      h('p', {}, h('a', { href: '#/topics', text: '← Topics' })),
      h('p', { id: 'topic-refused', role: 'alert', class: 'verdict denied',
        text: 'Not a topic: a scope is app, group/ID, user/ID or thing/ID, and neither an ID nor a name '
          + 'may be empty, "." or "..", or hold "/".' }));
    return;
  }
  const path = topicPath(scope, name);
  /** The batch being prepared: { change: 'grant'|'revoke', action, subject }. */
  let staged = [];
  let entries = [];

  const matrix = h('div', { id: 'acl-matrix' });
  const batch = h('div', { id: 'acl-batch', class: 'panel', 'aria-live': 'polite' });
  const explainResult = h('p', { id: 'explain-result', 'aria-live': 'polite' });
  const whoCan = h('div', { id: 'who-can', class: 'columns' });
  const subscribers = h('div', { id: 'subscribers' });
  const audit = h('div', { id: 'audit' });
  const testPush = h('div', { id: 'test-push', 'aria-live': 'polite' });
  const testMessage = h('input', { id: 'test-message', spellcheck: false, value: 'Test from the TopicGate console' });
  let watching = null;

  const subjectInput = h('input', { id: 'grant-subject', spellcheck: false,
    placeholder: 'login name, UserID:…, GroupID:…, ThingID:…, ANY_AUTHENTICATED_USER' });
  const grantAction = actionSelect('grant-action');
  const principalInput = h('input', { id: 'explain-principal', spellcheck: false,
    placeholder: 'login name, user:…, thing:…, VENDOR_THING_ID:…, anonymous' });
  const explainAction = actionSelect('explain-action');

  show(view,
    h('p', {}, h('a', { href: '#/topics', text: '← Topics' })),
    h('h1', {}, `${name} `, h('span', { class: 'muted', text: `in ${scope}` })),
    h('section', { 'aria-labelledby': 'acl-heading' },
      h('h2', { id: 'acl-heading', text: 'Access control list' }),
      matrix,
      h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); stageSubject(); } },
        field('Subject', subjectInput), field('Action', grantAction),
        h('button', { type: 'submit', text: 'Stage grant' })),
      batch),
    h('section', { 'aria-labelledby': 'explain-heading' },
      h('h2', { id: 'explain-heading', text: 'Explain a decision' }),
      h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); explain(); } },
        field('Principal', principalInput), field('Action', explainAction),
        h('button', { type: 'submit', class: 'primary', text: 'Explain' })),
      explainResult),
    h('section', { 'aria-labelledby': 'who-heading' },
      h('h2', { id: 'who-heading', text: 'Who can' }), whoCan),
    h('section', { 'aria-labelledby': 'subscribers-heading' },
      h('h2', { id: 'subscribers-heading', text: 'Subscribers' }), subscribers),
    h('section', { 'aria-labelledby': 'test-push-heading' },
      h('h2', { id: 'test-push-heading', text: 'Test push' }),
      h('p', { class: 'muted', text: 'Sent as the admin to the subscribers that pass SUBSCRIBE_TO_TOPIC, then '
        + 'followed to each of their devices. "Acknowledged": the broker took it while the device was connected; '
        + '"offline": the device was not connected, and gets it later only if the broker kept its session.' }),
      h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); sendTestPush(); } },
        field('Message', testMessage), h('button', { type: 'submit', id: 'send-test-push', text: 'Send test push' })),
      testPush),
    h('section', { 'aria-labelledby': 'audit-heading' },
      h('h2', { id: 'audit-heading', text: 'Audit trail' }), audit));

  async function loadACL() {
    entries = (await session.get(`${path}/acl?detailed=true`)).entries;
    renderMatrix();
    renderBatch();
  }

  function stagedFor(action, subject) {
    return staged.find((change) => change.action === action && change.subject === subject);
  }

  function toggle(change, action, subject, name) {
    const existing = stagedFor(action, subject);
    staged = existing ? staged.filter((c) => c !== existing) : [...staged, { change, action, subject, name }];
    renderMatrix();
    renderBatch();
  }

  function renderMatrix() {
    const subjects = [...new Set([...entries.map((e) => e.subject), ...staged.map((c) => c.subject)])].sort();
    const names = new Map(entries.filter((e) => e.name).map((e) => [e.subject, e.name]));
    for (const change of staged) if (change.name) names.set(change.subject, change.name);
    const rows = subjects.map((subject) => [
      h('th', { scope: 'row' }, subjectName(subject, names.get(subject)), h('code', { text: subject })),
      ...actions.map((action) => {
        const entry = entries.find((e) => e.action === action && e.subject === subject);
        const pending = stagedFor(action, subject);
        const marks = [];
        if (entry) {
          marks.push(h('span', { class: 'mark allowed', text: '✓' }));
          if (entry.default) marks.push(h('span', { class: 'badge', text: 'default' }));
          if (!entry.removable) marks.push(h('span', { class: 'badge', title: 'cannot be removed', text: 'kept' }));
        } else {
          marks.push(h('span', { class: 'mark', text: '—' }));
        }
        if (pending) {
          marks.push(h('span', { class: `badge staged ${pending.change}`, text: `${pending.change} staged` }),
            h('button', { type: 'button', class: 'small', text: 'Unstage',
              'aria-label': `Unstage ${pending.change} of ${action} for ${subject}`,
              onclick: () => toggle(pending.change, action, subject) }));
        } else if (entry?.removable) {
          marks.push(h('button', { type: 'button', class: 'small', text: 'Revoke',
            'aria-label': `Stage revoke of ${action} for ${subject}`,
            onclick: () => toggle('revoke', action, subject) }));
        } else if (!entry) {
          marks.push(h('button', { type: 'button', class: 'small', text: 'Grant',
            'aria-label': `Stage grant of ${action} for ${subject}`,
            onclick: () => toggle('grant', action, subject) }));
        }
        return h('td', { 'data-action': shortAction[action] }, marks);
      }),
    ]);
    show(matrix, h('div', { class: 'table-wrap' }, h('table', { class: 'matrix' },
      h('caption', { text: 'Entries: subjects × actions' }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Subject' }),
        actions.map((action) => h('th', { scope: 'col', text: action })))),
      h('tbody', {}, rows.map((cells) => h('tr', {}, cells))))));
  }

  function renderBatch(preview) {
    if (staged.length === 0) {
      show(batch, h('p', { class: 'muted', text: 'No change staged. Grant or revoke above, then preview and apply '
        + 'them together: all of them or none.' }));
      return;
    }
    const list = h('ol', {}, staged.map((change) => h('li', {},
      `${change.change} ${change.action} ${change.change === 'grant' ? 'to' : 'from'} ${change.subject} `,
      h('button', { type: 'button', class: 'small', text: 'Remove',
        'aria-label': `Remove the staged ${change.change} of ${change.action} for ${change.subject}`,
        onclick: () => toggle(change.change, change.action, change.subject) }))));
    const previewBlock = preview ? renderPreview(preview) : null;
    show(batch,
      h('h3', { text: `Staged: ${staged.length} change${staged.length === 1 ? '' : 's'}` }), list,
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: 'preview-batch', text: 'Preview', onclick: previewBatch }),
        h('button', { type: 'button', id: 'apply-batch', class: 'primary',
          text: `Apply ${staged.length} change${staged.length === 1 ? '' : 's'}`, onclick: applyBatch }),
        h('button', { type: 'button', text: 'Discard', onclick: () => { staged = []; renderMatrix(); renderBatch(); } })),
      previewBlock);
  }

  function renderPreview(after) {
    // Entries read `ACTION/Subject`.
    const before = new Set(entries.map((e) => `${e.action}/${e.subject}`));
    const afterSet = new Set(after);
    const lines = [...new Set([...before, ...afterSet])].sort().map((key) => {
      const text = key.replace('/', ' ');
      if (!before.has(key)) return h('li', { class: 'added' }, h('span', { class: 'sign', text: '+ ' }), text);
      if (!afterSet.has(key)) return h('li', { class: 'removed' }, h('span', { class: 'sign', text: '− ' }), text);
      return h('li', { class: 'kept', text: `  ${text}` });
    });
    return h('div', { id: 'batch-preview' }, h('h3', { text: 'The ACL after these changes' }),
      h('ul', { class: 'diff' }, lines));
  }

  const changes = () => ({ changes: staged.map((c) => ({ change: c.change, action: c.action, subject: c.subject })) });

  async function previewBatch() {
    try {
      const answer = await session.post(`${path}/acl?dryRun=true`, changes());
      renderBatch(answer.entries);
      say('Preview ready; nothing is changed yet.');
    } catch (error) {
      sayError(error);
    }
  }

  async function applyBatch() {
    try {
      const count = staged.length;
      say(`Applying ${count} change${count === 1 ? '' : 's'}…`);
      await session.post(`${path}/acl`, changes());
      staged = [];
      await Promise.all([loadACL(), loadWhoCan(), loadSubscribers(), loadAudit(),
        explained ? explain(explained) : null]);
      say(`Applied ${count} change${count === 1 ? '' : 's'}.`);
    } catch (error) {
      const index = error.body?.failedChangeIndex;
      say(`${describe(error)}${index === undefined ? '' : ` (change ${Number(index) + 1})`} — nothing was changed.`,
        true);
    }
  }

  async function stageSubject() {
    try {
      const typed = subjectInput.value.trim();
      const subject = await subjectFrom(session, typed);
      if (entries.some((e) => e.action === grantAction.value && e.subject === subject)) {
        say(`${subject} has ${grantAction.value} already.`, true);
        return;
      }
      const name = /:/.test(typed) || /_USER$/.test(typed) ? undefined : typed;
      if (!stagedFor(grantAction.value, subject)) toggle('grant', grantAction.value, subject, name);
      subjectInput.value = '';
      say(`Staged: grant ${grantAction.value} to ${subject}.`);
    } catch (error) {
      sayError(error);
    }
  }

  // The question last explained, asked again once the entries change so the verdict shown stays true.
  let explained = null;

  async function explain(question = { typed: principalInput.value.trim(), action: explainAction.value }) {
    try {
      const principal = await resolvePrincipal(session, question.typed);
      const answer = await session.get(`${path}/acl-explain?principal=${encodeURIComponent(principal)}` +
        `&action=${question.action}`);
      explained = question;
      explainResult.className = answer.allowed ? 'verdict allowed' : 'verdict denied';
      show(explainResult, h('strong', { text: answer.allowed ? 'Allowed' : 'Denied' }),
        ` — ${question.typed} (${answer.principal}), ${answer.action}: `
          + `${answer.reason.replace(/^(allowed|denied):\s*/, '').replace(/^allowed by /, 'by ')}.`);
    } catch (error) {
      explainResult.className = 'verdict error';
      explainResult.textContent = describe(error);
    }
  }

  async function loadWhoCan() {
    const answers = await Promise.all(actions.map((action) => session.get(`${path}/acl-who-can?action=${action}`)));
    show(whoCan, answers.map((answer) => h('div', { class: 'who', id: `who-${answer.action}` },
      h('h3', { text: `May ${shortAction[answer.action].toLowerCase()}` }),
      h('ul', {},
        h('li', { class: 'muted', text: 'the app admin (always)' }),
        answer.anyAuthenticatedUser ? h('li', { text: 'every authenticated user and thing (ANY_AUTHENTICATED_USER)' }) : null,
        answer.anonymous ? h('li', { text: 'anonymous callers (ANONYMOUS_USER)' }) : null,
        answer.principals.map((p) => h('li', {},
          h('span', { class: 'principal', text: p.name ? `${p.name} ` : '' }),
          h('code', { text: p.principal }), h('span', { class: 'muted', text: ` — ${p.reason}` })))),
      answer.truncated ? h('p', { class: 'muted', text: 'More principals pass than are shown.' }) : null)));
  }

  async function loadSubscribers() {
    const answer = await session.get(`${path}/push/subscriptions`);
    show(subscribers, table('Subscribed users and things', ['Principal', 'Name', 'Receives sends'],
      answer.subscribers.map((s) => [h('code', { text: s.principal }), s.name ?? '—',
        s.receives ? 'yes' : 'no: no longer passes SUBSCRIBE_TO_TOPIC']), 'nobody is subscribed.'));
  }

  async function sendTestPush() {
    clearInterval(watching);
    try {
      const sent = await session.post(`${path}/push/messages?trace=true`,
        { data: { message: testMessage.value, test: true } });
      const started = Date.now();
      const refresh = async () => {
        const trace = await session.get(`/push/messages/${encodeURIComponent(sent.pushMessageID)}/deliveries`);
        renderTrace(sent.pushMessageID, trace);
        // Followed until no device is pending, for at most a minute.
        if (trace.counts.pending === 0 || Date.now() - started > 60000) clearInterval(watching);
      };
      await refresh();
      watching = setInterval(() => refresh().catch((error) => { clearInterval(watching); sayError(error); }), 1000);
      say(`Test push ${sent.pushMessageID} sent.`);
    } catch (error) {
      sayError(error);
    }
  }

  function renderTrace(id, trace) {
    const c = trace.counts;
    show(testPush,
      h('p', { id: 'test-push-summary' }, h('strong', { text: `Push ${id}: ` }),
        trace.deliveries.length === 0 ? 'no subscriber has a device for MQTT push.'
          : `${c.acknowledged} acknowledged, ${c.pending} pending, ${c.offline} offline, ${c.failed} failed.`),
      table('Devices', ['Device', 'Of', 'State', 'Since', 'Connected now'],
        trace.deliveries.map((d) => [h('code', { text: d.installationID }),
          h('a', { href: `#/principal?p=${encodeURIComponent(d.principal)}`, text: d.name ?? d.principal }),
          h('span', {}, h('span', { class: `badge ${d.state}`, text: d.state }), d.detail ? ` ${d.detail}` : ''),
          readableTime(d.at), d.online ? 'yes' : 'no']), 'none.'));
  }

  async function loadAudit() {
    const answer = await session.get(`${path}/acl-audit`);
    show(audit, table('Changes, newest first', ['When', 'Actor', 'Change', 'Action', 'Subject'],
      [...answer.records].reverse().map((r) => [readableTime(r.at), h('code', { text: r.actor }), r.change,
        r.action, h('code', { text: r.subject })]), 'no change since the topic was created.'));
  }

  await Promise.all([loadACL(), loadWhoCan(), loadSubscribers(), loadAudit()].map((p) => p.catch(sayError)));
  return () => clearInterval(watching);
}

function actionSelect(id) {
  return h('select', { id }, actions.map((action) => h('option', { value: action, text: action })));
}

/** An ACL subject as the API writes it, from what the operator typed. */
async function subjectFrom(session, typed) {
  const text = typed.trim();
  if (/^(ANY_AUTHENTICATED_USER|ANONYMOUS_USER)$/i.test(text)) return `UserID:${text.toUpperCase()}`;
  const typedSubject = /^(UserID|GroupID|ThingID):(.+)$/i.exec(text);
  if (typedSubject) {
    const kind = { userid: 'UserID', groupid: 'GroupID', thingid: 'ThingID' }[typedSubject[1].toLowerCase()];
    return `${kind}:${typedSubject[2]}`;
  }
  const principal = await resolvePrincipal(session, text);
  const [kind, id] = principal.split(':');
  if (kind === 'user') return `UserID:${id}`;
  if (kind === 'thing') return `ThingID:${id}`;
  throw new Error(`${text} cannot be named in an entry; use ANONYMOUS_USER or ANY_AUTHENTICATED_USER.`);
}
