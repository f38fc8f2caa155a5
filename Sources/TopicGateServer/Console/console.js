// The console's shell: sign in, the sections, and the view the address names
// (#/overview, #/topics?q=…, #/topic?scope=…&name=…, #/security).
import { AdminSession } from '/console/api.js';
import { say, sayError, describe } from '/console/status.js';
import { renderOverview } from '/console/overview.js';
import { renderTopics } from '/console/topics.js';
import { renderTopic } from '/console/topic.js';
import { renderSecurity } from '/console/security.js';
import { renderPrincipals, renderPrincipal } from '/console/principals.js';

const views = {
  overview: renderOverview, topics: renderTopics, topic: renderTopic, principals: renderPrincipals,
  principal: renderPrincipal, security: renderSecurity,
};
/** The section each view belongs to in the navigation. */
const sections = { topic: 'topics', principal: 'principals' };
let session = AdminSession.restore();
/** Stops the current view's timers when another one replaces it. */
let leaveView = () => {};

function signOut(message) {
  session?.forget();
  session = null;
  route();
  if (message) say(message, true);
}

async function route() {
  leaveView();
  leaveView = () => {};
  say('');
  const signedIn = session !== null;
  document.getElementById('sign-in').hidden = signedIn;
  document.getElementById('nav').hidden = !signedIn;
  document.getElementById('session').hidden = !signedIn;
  const view = document.getElementById('view');
  if (!signedIn) {
    view.replaceChildren();
    document.getElementById('sign-in-app').focus();
    return;
  }
  document.getElementById('session-app').textContent = `app ${session.appID}`;
  const [path, query] = (location.hash.replace(/^#\/?/, '') || 'overview').split('?');
  const name = views[path] ? path : 'overview';
  for (const link of document.querySelectorAll('#nav a')) {
    const current = link.dataset.section === (sections[name] ?? name);
    if (current) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  try {
    leaveView = (await views[name](view, session, new URLSearchParams(query ?? ''))) ?? (() => {});
  } catch (error) {
    // The page could not be shown: say why in its place, not under the previous one.
    const failure = document.createElement('p');
    failure.className = 'verdict error';
    failure.textContent = describe(error);
    view.replaceChildren(failure);
    sayError(error);
  }
}

document.getElementById('sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const error = document.getElementById('sign-in-error');
  error.hidden = true;
  try {
    session = await AdminSession.signIn(
      form.appID.value.trim(), form.clientID.value.trim(), form.clientSecret.value);
    form.clientSecret.value = '';
    say('Signed in.');
    if (!location.hash || location.hash === '#/') location.hash = '#/overview'; else route();
  } catch (failure) {
    error.textContent = describe(failure);
    error.hidden = false;
  }
});
document.getElementById('sign-out').addEventListener('click', async () => {
  await session?.signOut();
  signOut();
});
window.addEventListener('console:unauthorized', () => signOut('The admin token is no longer accepted; sign in again.'));
window.addEventListener('hashchange', () => route().then(() => document.getElementById('main').focus()));
route();
