// The status line under the page (announced to screen readers).
import { APIError } from '/console/api.js';

/** Tells the person what happened; errors show in red. */
export function say(message, isError = false) {
  const status = document.getElementById('status');
  status.textContent = message;
  status.classList.toggle('error', isError);
}

/** An error as the API named it (`errorCode: message`). A refused token signs the console out
 * (the shell listens for `console:unauthorized`). */
export function sayError(error) {
  if (error instanceof APIError && error.status === 401) {
    window.dispatchEvent(new Event('console:unauthorized'));
    return;
  }
  say(describe(error), true);
}

export function describe(error) {
  return error instanceof APIError ? `${error.errorCode}: ${error.message}` : String(error?.message ?? error);
}
