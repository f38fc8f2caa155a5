// Users, groups and things: a search, and one principal's page (its groups, owned things or
// owners, devices, the topics it may subscribe or send to, disable/enable; a thing's latest
// state and commands; a group's members, things and topics).
import { h, show, field, table, readableTime } from '/console/dom.js';
import { say, sayError } from '/console/status.js';
import { isSegment } from '/console/api.js';

const topicLink = (topic) => h('a', {
  href: `#/topic?scope=${encodeURIComponent(topic.scope)}&name=${encodeURIComponent(topic.topicID)}`,
  text: `${topic.scope}/${topic.topicID}`,
});
const verbs = { SUBSCRIBE_TO_TOPIC: 'subscribe', SEND_MESSAGE_TO_TOPIC: 'send' };
const principalLink = (principal, text) =>
  h('a', { href: `#/principal?p=${encodeURIComponent(principal)}`, text: text ?? principal });

export async function renderPrincipals(view, session, query) {
  const text = query.get('q') ?? '';
  const input = h('input', { id: 'principal-search', type: 'search', value: text, spellcheck: false,
    placeholder: 'login name, email, phone, ID, group name, vendor thing ID' });
  const results = h('div', { id: 'principal-results' });
  show(view, h('h1', { text: 'Principals' }),
    h('form', { class: 'inline', role: 'search', onsubmit: (event) => {
      event.preventDefault();
      location.hash = `#/principals?q=${encodeURIComponent(input.value.trim())}`;
    } }, field('Search users, groups and things', input), h('button', { type: 'submit', class: 'primary', text: 'Search' })),
    results);
  if (text === '') {
    show(results, h('p', { class: 'muted', text: 'Type part of a name, an address or an ID.' }));
    input.focus();
    return;
  }
  const answer = await session.get(`/principal-search?q=${encodeURIComponent(text)}&limit=100`);
  show(results, table(`${answer.principals.length} found`, ['Kind', 'Name', 'ID', 'Detail', 'Status'],
    answer.principals.map((p) => [p.kind, principalLink(p.principal, p.name ?? '(no name)'),
      h('code', { text: p.principal }), p.detail ?? '—', p.disabled ? 'disabled' : 'enabled']), 'nothing matches.'));
}

export async function renderPrincipal(view, session, query) {
  const principal = query.get('p') ?? '';
  const [kind, id] = [principal.split(':')[0], principal.slice(principal.indexOf(':') + 1)];
  if (!principal.includes(':') || !['user', 'thing', 'group'].includes(kind) || !isSegment(id)) {
    show(view, h('p', { id: 'principal-refused', role: 'alert', class: 'verdict denied',
      text: 'Not a principal: user:ID, thing:ID or group:ID.' }));
    return;
  }
  const access = await session.get(`/principals/${encodeURIComponent(principal)}/access`);
  if (access.kind === 'group') return renderGroup(view, access);
  const status = h('p', { id: 'principal-status' });
  const toggle = h('button', { type: 'button', id: 'toggle-disabled' });
  function renderStatus(disabled) {
    status.className = disabled ? 'verdict denied' : 'verdict allowed';
    show(status, h('strong', { text: disabled ? 'Disabled' : 'Enabled' }),
      disabled ? ': its tokens are refused and its devices were disconnected.' : ': its tokens are accepted.');
    toggle.textContent = disabled ? `Enable this ${kind}` : `Disable this ${kind}`;
    toggle.onclick = async () => {
      try {
        await session.put(`/${kind}s/${encodeURIComponent(id)}/status`, { disabled: !disabled });
        renderStatus(!disabled);
        say(`${access.name ?? principal} is ${disabled ? 'enabled' : 'disabled'}.`);
      } catch (error) {
        sayError(error);
      }
    };
  }
  renderStatus(access.disabled);

  const devices = h('div', { id: 'devices' });
  const renderDevices = (installations) => show(devices,
    table('Installations', ['Installation', 'Connected', 'Type', 'MQTT topic', 'Broker', 'Installed'],
      installations.map((i) => [h('code', { text: i.installationID }), presence(i), i.deviceType,
        h('code', { text: i.mqttTopic }), i.broker ?? '—', readableTime(i.createdAt)]), 'no device installed.'));
  renderDevices(access.installations);

  const sections = [
    h('p', {}, h('a', { href: '#/principals', text: '← Principals' })),
    h('h1', {}, `${access.name ?? '(no name)'} `, h('span', { class: 'muted', text: principal })),
    h('section', { 'aria-labelledby': 'standing-heading' }, h('h2', { id: 'standing-heading', text: 'Standing' }),
      status, h('div', { class: 'buttons' }, toggle)),
  ];
  if (kind === 'user') {
    sections.push(h('section', { 'aria-labelledby': 'groups-heading' },
      h('h2', { id: 'groups-heading', text: 'Groups and things' }),
      table('Groups', ['Group', 'ID', 'Role'], access.groups.map((g) => [g.name,
        principalLink(`group:${g.groupID}`, g.groupID), g.owner ? 'owner' : 'member'])),
      table('Things it owns (itself or through a group)', ['Thing'],
        access.ownedThings.map((thing) => [principalLink(`thing:${thing}`)]))));
  } else {
    sections.push(h('section', { 'aria-labelledby': 'owners-heading' },
      h('h2', { id: 'owners-heading', text: 'Owners' }),
      table('Owners', ['Owner'], access.owners.map((owner) => [principalLink(owner)]))),
      gatewaySection(access));
  }
  sections.push(
    h('section', { 'aria-labelledby': 'devices-heading' }, h('h2', { id: 'devices-heading', text: 'Devices' }),
      devices, h('p', { class: 'muted', text: 'Connections as the brokers report them, refreshed every 2 s.' })),
    h('section', { 'aria-labelledby': 'may-heading' }, h('h2', { id: 'may-heading', text: 'Topics it may use' }),
      h('div', { class: 'columns' },
        h('div', { id: 'may-subscribe' }, table('May subscribe', ['Topic', 'Why'],
          access.maySubscribe.map((t) => [topicLink(t), t.reason]))),
        h('div', { id: 'may-send' }, table('May send', ['Topic', 'Why'],
          access.maySend.map((t) => [topicLink(t), t.reason])))),
      h('p', { class: 'muted', text: `${access.topicsChecked} topic${access.topicsChecked === 1 ? '' : 's'} checked`
        + (access.truncated ? ' (the app has more; the first ones are shown).' : '.') })));
  if (kind === 'thing') sections.push(await thingSection(session, id));
  show(view, sections);
  const timer = setInterval(async () => {
    try {
      renderDevices((await session.get(`/principals/${encodeURIComponent(principal)}/access?topics=false`)).installations);
    } catch (error) {
      sayError(error);
    }
  }, 2000);
  return () => clearInterval(timer);
}

/** A group: its owner and members, the things it owns, its scope's topics, the ACLs naming it. */
function renderGroup(view, group) {
  const shown = group.members.length < group.memberCount ? ` (the first ${group.members.length})` : '';
  show(view,
    h('p', {}, h('a', { href: '#/principals', text: '← Principals' })),
    h('h1', {}, `${group.name} `, h('span', { class: 'muted', text: group.principal })),
    h('p', { class: 'muted', text: `Created ${readableTime(group.createdAt)}. A group has no standing of its own: `
      + 'disable its members, or delete it through the API.' }),
    h('section', { 'aria-labelledby': 'members-heading' },
      h('h2', { id: 'members-heading', text: `Members: ${group.memberCount}` }),
      table(`Owner and members${shown}`, ['Member', 'ID', 'Role', 'Status'],
        group.members.map((m) => [principalLink(m.principal, m.name ?? '(no name)'), h('code', { text: m.principal }),
          m.owner ? 'owner' : 'member', m.disabled ? 'disabled' : 'enabled'])),
      table('Things it owns', ['Thing'], group.ownedThings.map((thing) => [principalLink(`thing:${thing}`)]),
        'none.')),
    h('section', { 'aria-labelledby': 'group-topics-heading' },
      h('h2', { id: 'group-topics-heading', text: 'Topics' }),
      h('div', { class: 'columns' },
        h('div', { id: 'scope-topics' }, table('Topics of its scope', ['Topic'],
          group.scopeTopics.map((t) => [topicLink(t)]), 'none.')),
        h('div', { id: 'named-in' }, table('ACL entries that name it', ['Topic', 'Actions'],
          group.namedIn.map((t) => [topicLink(t), t.actions.map((a) => verbs[a] ?? a).join(', ')]), 'none.'))),
      h('p', { class: 'muted', text: `${group.topicsChecked} topic${group.topicsChecked === 1 ? '' : 's'} checked`
        + (group.truncated ? ' (the app has more; the first ones are shown).' : '.') })));
}

/** Online now, or when the device was last seen (as the brokers reported it). */
function presence(installation) {
  const deleted = installation.revokedAt ? `deleted ${readableTime(installation.revokedAt)}; ` : '';
  if (installation.online) return h('span', {}, deleted, h('span', { class: 'badge online', text: 'online' }));
  return deleted + (installation.lastSeen ? `offline, last seen ${readableTime(installation.lastSeen)}`
    : 'offline, never connected');
}

/** A gateway's end nodes, or an end node's gateway, with the connection the gateway reported. */
function gatewaySection(access) {
  const connection = (online, at) => online === undefined ? 'not reported'
    : h('span', {}, h('span', { class: online ? 'badge online' : 'badge', text: online ? 'online' : 'offline' }),
      at ? ` since ${readableTime(at)}` : '');
  if (access.gateway) {
    return h('section', { 'aria-labelledby': 'gateway-heading' },
      h('h2', { id: 'gateway-heading', text: 'Gateway' }),
      h('p', { id: 'end-node-of' }, 'An end node of ', principalLink(`thing:${access.gateway.thingID}`),
        ', which receives its commands; reported ', connection(access.gateway.online, access.gateway.onlineModifiedAt),
        '.'));
  }
  if (access.layoutPosition !== 'GATEWAY') return null;
  return h('section', { 'aria-labelledby': 'end-nodes-heading' },
    h('h2', { id: 'end-nodes-heading', text: `End nodes: ${access.endNodes.length}${access.moreEndNodes ? '+' : ''}` }),
    h('div', { id: 'end-nodes' }, table('End nodes this gateway relays for', ['End node', 'Vendor thing ID', 'Connection'],
      access.endNodes.map((node) => [principalLink(`thing:${node.thingID}`), h('code', { text: node.vendorThingID }),
        connection(node.online)]), 'none.')),
    access.moreEndNodes ? h('p', { class: 'muted', text: 'The first 100 are shown; the API lists them all.' }) : null);
}

/** A thing's latest state and commands (Thing-IF). */
async function thingSection(session, id) {
  const target = `/targets/thing:${encodeURIComponent(id)}`;
  const state = await session.thingIF(`${target}/states`).catch(() => null);
  const commands = await session.thingIF(`${target}/commands?bestEffortLimit=10`).catch(() => ({ commands: [] }));
  return h('section', { 'aria-labelledby': 'thing-heading' }, h('h2', { id: 'thing-heading', text: 'State and commands' }),
    state ? h('pre', { class: 'state', text: JSON.stringify(state, null, 2) })
      : h('p', { class: 'muted', text: 'No state reported yet.' }),
    table('Latest commands', ['Command', 'Issuer', 'State', 'Created'],
      (commands?.commands ?? []).map((c) => [h('code', { text: c.commandID }), c.issuer ?? '—',
        c.commandState ?? '—', readableTime(c.createdAt)]), 'none.'));
}
