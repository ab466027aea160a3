// Desktop notifications through the browser's Notification API. The browser asks the user once;
// the console asks only when the agent turns a desktop notification on (a click: browsers refuse
// a request that no gesture started).

export type DesktopPermission = NotificationPermission | 'unsupported';

export function desktopPermission(): DesktopPermission {
  return typeof Notification === 'function' ? Notification.permission : 'unsupported';
}

export async function askDesktopPermission(): Promise<DesktopPermission> {
  if (typeof Notification !== 'function') return 'unsupported';
  if (Notification.permission !== 'default') return Notification.permission;
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

/** Shows one; a second with the same tag replaces it. A click brings the console forward. */
export function showDesktop(n: { title: string; body: string; tag: string; onClick: () => void }) {
  if (desktopPermission() !== 'granted') return;
  try {
    const shown = new Notification(n.title, { body: n.body, tag: n.tag, icon: '/favicon.svg' });
    shown.onclick = () => {
      window.focus();
      n.onClick();
      shown.close();
    };
  } catch {
    // Some browsers allow notifications only from a service worker: the sound and the title remain.
  }
}
