// The channels module's public entry: what other modules, the gateway and the wiring may use of it.
export { CHANNEL_UNHEALTHY, ChannelHealthService, channelUnhealthyError } from './channel-health.service.js';
export { type ApiChannel, ChannelKeys } from './channel-keys.js';
export { type ChannelRow, ChannelsRepo } from './channels.repo.js';
export { channelsRoutes } from './channels.routes.js';
export { ChannelsService } from './channels.service.js';
export { toChannel } from './channels.presenter.js';
export { TemplatesService } from './templates.service.js';
export { ChannelSchema } from './channels.schemas.js';
