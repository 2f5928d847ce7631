import { useSyncExternalStore } from 'react';

/** Chromium's install offer (not in TypeScript's DOM types). */
interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

interface InstallState {
  /** The browser offers to install the app now. */
  canPrompt: boolean;
  /** Running as the installed app. */
  standalone: boolean;
  /** iOS, where one installs from Safari's share menu (and web push works only once installed). */
  ios: boolean;
}

let offer: BeforeInstallPromptEvent | null = null;
let installed = false;
const listeners = new Set<() => void>();
let snapshot: InstallState | null = null;

function notify() {
  snapshot = null;
  for (const listener of listeners) listener();
}

function isStandalone(): boolean {
  const iosStandalone = (navigator as Navigator & { standalone?: boolean }).standalone === true;
  const displayStandalone = typeof window.matchMedia === 'function' && window.matchMedia('(display-mode: standalone)').matches;
  return installed || iosStandalone || displayStandalone;
}

function isIos(): boolean {
  const ua = navigator.userAgent;
  // iPadOS presents itself as a Mac with a touch screen.
  return /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1);
}

/** Keeps the browser's install offer for later; call once, before the first render. */
export function listenForInstallOffer(): void {
  window.addEventListener('beforeinstallprompt', (event) => {
    event.preventDefault();
    offer = event as BeforeInstallPromptEvent;
    notify();
  });
  window.addEventListener('appinstalled', () => {
    offer = null;
    installed = true;
    notify();
  });
}

function current(): InstallState {
  snapshot ??= { canPrompt: offer !== null, standalone: isStandalone(), ios: isIos() };
  return snapshot;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Shows the browser's install dialog; true when the user installed. */
export async function promptInstall(): Promise<boolean> {
  if (!offer) return false;
  const shown = offer;
  offer = null;
  await shown.prompt();
  const { outcome } = await shown.userChoice;
  notify();
  return outcome === 'accepted';
}

export function useInstall(): InstallState {
  return useSyncExternalStore(subscribe, current);
}
