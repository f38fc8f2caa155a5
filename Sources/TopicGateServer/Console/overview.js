// Counts of the app and the gateway's live rates, refreshed every two seconds.
import { h, show } from '/console/dom.js';
import { sayError } from '/console/status.js';

const counts = [
  ['users', 'Users'], ['pseudoUsers', 'Pseudo users'], ['groups', 'Groups'], ['things', 'Things'],
  ['topics', 'Topics'], ['installations', 'Installations'],
];
const rates = [
  ['sendsAllowed', 'Sends /s'], ['deliveries', 'Deliveries /s'], ['sendsDenied', 'Refused sends /s'],
  ['subscribesDenied', 'Refused subscribes /s'], ['deliveriesFailed', 'Failed deliveries /s'],
];

export async function renderOverview(view, session) {
  const countList = h('dl', { class: 'tiles', 'aria-label': 'Counts' });
  const rateList = h('dl', { class: 'tiles', 'aria-label': 'Rates' });
  const queueList = h('dl', { class: 'tiles', 'aria-label': 'Queues' });
  const updated = h('p', { class: 'muted', 'aria-live': 'off' });
  show(view,
    h('h1', { text: 'Overview' }),
    h('section', { 'aria-labelledby': 'counts-heading' }, h('h2', { id: 'counts-heading', text: 'This app' }), countList),
    h('section', { 'aria-labelledby': 'rates-heading' },
      h('h2', { id: 'rates-heading', text: 'This gateway, now' }), rateList, queueList, updated));
  let previous = null;
  async function refresh() {
    try {
      const overview = await session.get('/overview');
      show(countList, counts.map(([key, label]) => tile(label, overview.counts[key])));
      const seconds = previous ? (overview.at - previous.at) / 1000 : 0;
      show(rateList, rates.map(([key, label]) => tile(label,
        previous && seconds > 0 ? ((overview.gateway[key] - previous.gateway[key]) / seconds).toFixed(1) : '…')));
      show(queueList,
        // This app's alone, like every figure of the overview.
        tile('Outbox depth', overview.outboxDepth), tile('Dead letters', overview.deadLetters),
        overview.brokerConnected === undefined ? null
          : tile('Broker link', overview.brokerConnected ? 'connected' : 'down'),
        overview.devicesOnline === undefined ? null : tile('Devices online', overview.devicesOnline));
      updated.textContent = `Updated ${new Date(overview.at).toLocaleTimeString()}; rates over the last ` +
        `${seconds > 0 ? seconds.toFixed(1) : '–'} s.`;
      previous = overview;
    } catch (error) {
      sayError(error);
    }
  }
  await refresh();
  const timer = setInterval(refresh, 2000);
  return () => clearInterval(timer);
}

function tile(label, value) {
  return h('div', { class: 'tile' }, h('dt', { text: label }), h('dd', { text: String(value ?? '—') }));
}
