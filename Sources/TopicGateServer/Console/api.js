// The admin HTTP API, as the console uses it: every action goes through these calls, so the
// console can do nothing that `curl` and `topicgate acl …` cannot.

const storageKey = 'topicgate.console.session';

/** A Kii-style error answer (`errorCode`, `message`). */
export class APIError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.errorCode = body?.errorCode ?? 'HTTP_' + status;
    this.body = body ?? {};
  }
}

/** The signed-in admin: the app and its admin token, kept in this tab's sessionStorage. */
export class AdminSession {
  constructor(appID, token) {
    this.appID = appID;
    this.token = token;
  }

  static restore() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null');
      return saved?.appID && saved?.token ? new AdminSession(saved.appID, saved.token) : null;
    } catch {
      return null;
    }
  }

  /** Client credentials for an admin token (`POST /api/apps/{app}/oauth2/token`). */
  static async signIn(appID, clientID, clientSecret) {
    const answer = await send('POST', `/api/apps/${encodeURIComponent(appID)}/oauth2/token`, null, {
      grant_type: 'client_credentials', client_id: clientID, client_secret: clientSecret,
    });
    const session = new AdminSession(appID, answer.access_token);
    sessionStorage.setItem(storageKey, JSON.stringify({ appID, token: session.token }));
    return session;
  }

  /** Signing out ends the admin token on the server too (RFC 7009), not only in this tab. */
  async signOut() {
    sessionStorage.removeItem(storageKey);
    try {
      await this.post('/oauth2/revoke', { token: this.token });
    } catch {
      // Already refused or expired: nothing left to end.
    }
  }

  forget() {
    sessionStorage.removeItem(storageKey);
  }

  /** A call under `/api/apps/{app}`; resolves to the JSON answer (null for 204). */
  call(method, path, body) {
    return send(method, `/api/apps/${encodeURIComponent(this.appID)}${path}`, this.token, body);
  }

  /** A call under `/thing-if/apps/{app}` (a thing's states and commands). */
  thingIF(path) {
    return send('GET', `/thing-if/apps/${encodeURIComponent(this.appID)}${path}`, this.token);
  }

  get(path) { return this.call('GET', path); }
  post(path, body) { return this.call('POST', path, body); }
  put(path, body) { return this.call('PUT', path, body); }
}

async function send(method, url, token, body) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined && body !== null) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method, headers, body: body === undefined || body === null ? undefined : JSON.stringify(body),
    credentials: 'omit', cache: 'no-store',
  });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) throw new APIError(response.status, json);
  return json;
}

/** The path of a topic: `app/NAME`, `group/ID/NAME`, `user/ID/NAME` or `thing/ID/NAME`
 * (scope as the search answers it, then the name). */
/** One path segment as an ID or a topic name: not empty, not `.` or `..` (which a URL would
 * resolve away, turning `group/..` into the app scope), no `/`, `\` or control character. */
export function isSegment(text) {
  return typeof text === 'string' && text.length > 0 && text !== '.' && text !== '..'
    && !/[\/\\\u0000-\u001f\u007f]/.test(text);
}

/** True when `scope` (`app`, `group/ID`, `user/ID`, `thing/ID`) and `name` name a topic; the
 * console checks what a link's fragment says before it makes any request with it. */
export function isTopic(scope, name) {
  if (!isSegment(name)) return false;
  if (scope === 'app') return true;
  const parts = String(scope).split('/');
  return parts.length === 2 && ['group', 'user', 'thing'].includes(parts[0]) && isSegment(parts[1]);
}

export function topicPath(scope, name) {
  if (!isTopic(scope, name)) throw new Error(`Not a topic: ${scope} ${name}`);
  const [kind, id] = scope.split('/');
  const prefix = kind === 'app' ? '' : `/${kind}s/${encodeURIComponent(id)}`;
  return `${prefix}/topics/${encodeURIComponent(name)}`;
}

/** What an operator types for a principal, as the API names it: `user:ID`, `thing:ID`,
 * `anonymous`, `admin`; a login name, `EMAIL:…`, `PHONE:…` or `VENDOR_THING_ID:…` is looked up. */
export async function resolvePrincipal(session, typed) {
  const text = typed.trim();
  if (/^(user|thing):/i.test(text)) return text.replace(/^(\w+):/, (_, kind) => `${kind.toLowerCase()}:`);
  if (/^(anonymous|admin)$/i.test(text)) return text.toLowerCase();
  if (/^VENDOR_THING_ID:/i.test(text)) {
    const thing = await session.get(`/things/${encodeURIComponent(text)}`);
    return `thing:${thing._thingID}`;
  }
  const address = /^(EMAIL|PHONE|LOGIN_NAME):/i.test(text) ? text : `LOGIN_NAME:${text}`;
  const user = await session.get(`/users/${encodeURIComponent(address)}`);
  return `user:${user.userID}`;
}
