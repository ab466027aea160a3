import type { ReactNode } from 'react';
import type { Me } from '../models';
import { DirectoryProvider } from './directory';
import { DraftsProvider } from './drafts';
import { GatewayProvider } from './gateway';
import { LabelsProvider } from './labels';
import { MeProvider } from './me';
import { NotificationsProvider } from './notifications';

// Everything the signed-in console shares, one provider and hook each: who is logged in (useMe), the
// account's directory of teams, users and channels (useDirectory), the gateway connection and its
// subscriptions (useGateway), the account's labels (useLabels), drafts (useDrafts) and notifications (useNotifications). Each one
// reads only those above it, in this order.

export { useDirectory } from './directory';
export { useDrafts } from './drafts';
export { useGateway } from './gateway';
export { useLabels } from './labels';
export type { ConnState, Gateway } from './gateway-client';
export { useMe } from './me';
export { useNotifications } from './notifications';

export function SessionProvider(props: {
  me: Me;
  onLoggedOut: (expired: boolean) => void;
  children: ReactNode;
}) {
  return (
    <MeProvider me={props.me} onLoggedOut={props.onLoggedOut}>
      <DirectoryProvider>
        <GatewayProvider>
          <LabelsProvider>
            <DraftsProvider>
              <NotificationsProvider>{props.children}</NotificationsProvider>
            </DraftsProvider>
          </LabelsProvider>
        </GatewayProvider>
      </DirectoryProvider>
    </MeProvider>
  );
}
