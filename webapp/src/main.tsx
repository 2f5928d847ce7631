import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'pretendard/dist/web/variable/pretendardvariable-dynamic-subset.css';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import './styles/layout.css';
import './styles/shared.css';
// Each feature imports its own stylesheet, its desktop layout (from 1024 px) included; the app
// comes here so that they come after the shared styles, which they override.
import { App } from './app/app';
// After ours, where sonner would have injected it (see vite.config.ts).
import 'sonner/dist/styles.css';
import { registerSW } from 'virtual:pwa-register';
import { listenForInstallOffer } from './lib/install';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// Before the first render: Chromium offers installation once, early.
listenForInstallOffer();
// The worker updates itself; a new version is used from the next visit.
registerSW({ immediate: true });

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
